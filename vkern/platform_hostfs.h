/*
 * Platform hooks for hostfs: host directories opened at start-up, and
 * files beneath them.  (Filled in with hostfs.)
 */
#ifndef VK_PLATFORM_HOSTFS_H
#define VK_PLATFORM_HOSTFS_H

#endif

/*
 * Errors at the command line and set-up edge: an errno and a message,
 * made where the failure happens, given context on the way up and printed
 * once by main().  The syscall path never uses these.
 */
#ifndef VK_HOST_ERROR_H
#define VK_HOST_ERROR_H

struct vk_error {
	int errnum;      /* 0 when the message says it all */
	int exitcode;    /* the status to exit with; 0 means 1 */
	char msg[512];
};

/* Fill *err (allocating it) and return -1, or -errnum when it is set. */
int vk_error_make(struct vk_error **err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Print "vkernel: MSG[: strerror]" and free the error. */
void vk_error_print(struct vk_error *err);

#endif

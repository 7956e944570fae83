/*
 * Credentials: getuid, geteuid, getgid, getegid.
 *
 * The guest's ids are the invoking user's unless the command line says
 * otherwise; the set* calls come with #4.
 */
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"

long
sys_getuid(struct thread *td, const struct sys_getuid_args *a)
{
	return td->proc->cred.uid;
}

long
sys_geteuid(struct thread *td, const struct sys_geteuid_args *a)
{
	return td->proc->cred.euid;
}

long
sys_getgid(struct thread *td, const struct sys_getgid_args *a)
{
	return td->proc->cred.gid;
}

long
sys_getegid(struct thread *td, const struct sys_getegid_args *a)
{
	return td->proc->cred.egid;
}

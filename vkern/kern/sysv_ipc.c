/*
 * System V IPC: the id tables, permissions and limits the three families
 * share (see sysv_ipc.h for the model).
 *
 * Slots are handed out as Linux's ipc_idr_alloc() does: cyclically from
 * the one after the last, within max(in_use * 3 / 2, 64) slots, and the
 * sequence number goes up each time the search wraps.  A guest's first
 * objects thus get ids 0, 1, 2... as on a fresh Linux.
 */
#include <errno.h>
#include <linux/ipc.h>
#include <linux/msg.h>
#include <linux/sem.h>
#include <linux/shm.h>
#include <sys/stat.h>
#include <time.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/sysv_ipc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"
#include "vkern/vk.h"

/* Linux's ipc_min_cycle: a table cycles through at least this many slots. */
#define IPC_MIN_CYCLE 64

/* Linux's defaults (include/uapi/linux/shm.h, sem.h, msg.h). */
struct ipc_limits ipc_lim = {
	.shmmax = UINT64_MAX - (1ULL << 24),
	.shmall = UINT64_MAX - (1ULL << 24),
	.shmmni = 4096,
	.sem = { 32000, 1024000000, 500, 32000 },
	.msgmax = 8192, .msgmnb = 16384, .msgmni = 32000,
};

int64_t
ipc_now(void)
{
	return plat_clock_ns(CLOCK_REALTIME) / 1000000000;
}

static struct ipc_obj *
ipc_find_key(const struct ipc_ids *ids, int32_t key)
{
	for (unsigned i = 0; i < ids->nslot; i++)
		if (ids->slot[i] != NULL && ids->slot[i]->key == key)
			return ids->slot[i];
	return NULL;
}

long
ipc_get(struct ipc_ids *ids, const struct ipc_ops *ops, struct thread *td,
    int32_t key, int flg, uint64_t arg)
{
	struct ipc_obj *o;
	int r;

	if (key == IPC_PRIVATE)
		return ops->create(td, key, flg, arg);
	if ((o = ipc_find_key(ids, key)) == NULL) {
		if (!(flg & IPC_CREAT))
			return -ENOENT;
		return ops->create(td, key, flg, arg);
	}
	if ((flg & IPC_CREAT) && (flg & IPC_EXCL))
		return -EEXIST;
	if (ops->more != NULL && (r = ops->more(o, arg)) < 0)
		return r;
	if (!ipc_may(td->proc, o, flg))
		return -EACCES;
	return o->id;
}

/* A free slot below max, the first after the last handed out. */
static int
ipc_free_slot(const struct ipc_ids *ids, unsigned max)
{
	unsigned start = (unsigned)(ids->last_idx + 1);

	for (unsigned n = 0; n < max; n++) {
		unsigned i = (start + n) % max;

		if (i >= ids->nslot || ids->slot[i] == NULL)
			return (int)i;
	}
	return -1;
}

/* Room for slot idx in the table. */
static int
ipc_grow(struct ipc_ids *ids, unsigned idx)
{
	unsigned n = ids->nslot;
	struct ipc_obj **s;

	if (idx < n)
		return 0;
	while (n <= idx)
		n = n == 0 ? IPC_MIN_CYCLE : n * 2;
	n = VK_MIN(n, IPC_ID_SLOTS);
	s = kmem_realloc(ids->slot, ids->nslot * sizeof(*s), n * sizeof(*s),
	    KM_ZERO | KM_FS);
	if (s == NULL)
		return -ENOMEM;
	ids->slot = s;
	ids->nslot = n;
	return 0;
}

void
ipc_gone(void)
{
	static const struct ipc_family *const fams[] = { &shm_family,
	    &sem_family, &msg_family };

	for (size_t i = 0; i < VK_NELEM(fams); i++) {
		struct ipc_ids *ids = fams[i]->ids;

		for (unsigned idx = 0; idx < ids->nslot; idx++)
			if (ids->slot[idx] != NULL)
				fams[i]->destroy(ids->slot[idx]);
		kmem_free(ids->slot, ids->nslot * sizeof(*ids->slot), KM_FS);
		*ids = (struct ipc_ids){ .last_idx = -1 };
	}
}

int
ipc_add(struct ipc_ids *ids, struct ipc_obj *o, const struct proc *p,
    int32_t key, int flg, uint64_t max)
{
	unsigned cycle = VK_MAX(ids->in_use * 3 / 2, IPC_MIN_CYCLE);
	int idx;

	if (ids->in_use >= VK_MIN(max, IPC_ID_SLOTS))
		return -ENOSPC;
	cycle = VK_MIN(cycle, IPC_ID_SLOTS);
	if ((idx = ipc_free_slot(ids, cycle)) < 0)
		return -ENOSPC;
	if (ipc_grow(ids, (unsigned)idx) < 0)
		return -ENOMEM;
	if (idx <= ids->last_idx && ++ids->seq >= IPC_SEQ_MAX)
		ids->seq = 0;
	ids->last_idx = idx;
	*o = (struct ipc_obj){ .key = key, .uid = p->cred.euid,
	    .gid = p->cred.egid, .cuid = p->cred.euid, .cgid = p->cred.egid,
	    .mode = (uint32_t)flg & 0777, .seq = (uint16_t)ids->seq,
	    .id = (int)ids->seq * IPC_ID_SLOTS + idx, .ctime = ipc_now() };
	ids->slot[idx] = o;
	ids->in_use++;
	return 0;
}

void
ipc_remove(struct ipc_ids *ids, struct ipc_obj *o)
{
	unsigned idx = (unsigned)o->id % IPC_ID_SLOTS;

	VK_ASSERT(idx < ids->nslot && ids->slot[idx] == o);
	ids->slot[idx] = NULL;
	ids->in_use--;
	if (ids->in_use == 0) {
		kmem_free(ids->slot, ids->nslot * sizeof(*ids->slot), KM_FS);
		ids->slot = NULL;
		ids->nslot = 0;
	}
}

struct ipc_obj *
ipc_at(const struct ipc_ids *ids, int idx)
{
	if (idx < 0 || (unsigned)idx >= ids->nslot)
		return NULL;
	return ids->slot[idx];
}

struct ipc_obj *
ipc_lookup(const struct ipc_ids *ids, int id)
{
	struct ipc_obj *o;

	if (id < 0)
		return NULL;
	o = ipc_at(ids, id % IPC_ID_SLOTS);
	return o != NULL && o->id == id ? o : NULL;
}

int
ipc_max_idx(const struct ipc_ids *ids)
{
	for (unsigned i = ids->nslot; i > 0; i--)
		if (ids->slot[i - 1] != NULL)
			return (int)i - 1;
	return -1;
}

bool
ipc_may(const struct proc *p, const struct ipc_obj *o, int flg)
{
	unsigned want = (unsigned)(((flg >> 6) | (flg >> 3) | flg) & 07);
	unsigned granted = o->mode;

	if (p->cred.euid == o->cuid || p->cred.euid == o->uid)
		granted >>= 6;
	else if (proc_in_group(p, o->cgid) || proc_in_group(p, o->gid))
		granted >>= 3;
	return (want & ~granted & 07) == 0 || p->cred.euid == 0;
}

bool
ipc_owner(const struct proc *p, const struct ipc_obj *o)
{
	return p->cred.euid == o->cuid || p->cred.euid == o->uid ||
	    p->cred.euid == 0;
}

struct ipc_obj *
ipc_owned(const struct ipc_ids *ids, const struct proc *p, int id, int *errp)
{
	struct ipc_obj *o = ipc_lookup(ids, id);

	*errp = o == NULL ? -EINVAL : !ipc_owner(p, o) ? -EPERM : 0;
	return *errp == 0 ? o : NULL;
}

void
ipc_perm_get(const struct ipc_obj *o, struct ipc64_perm *out)
{
	*out = (struct ipc64_perm){ .key = o->key, .uid = o->uid,
	    .gid = o->gid, .cuid = o->cuid, .cgid = o->cgid,
	    .mode = (__kernel_mode_t)o->mode, .seq = o->seq };
}

int
ipc_perm_set(struct ipc_obj *o, const struct ipc64_perm *in)
{
	/* As Linux's ipc_update_perm(): (uid_t)-1 is no user. */
	if (in->uid == UINT32_MAX || in->gid == UINT32_MAX)
		return -EINVAL;
	o->uid = in->uid;
	o->gid = in->gid;
	o->mode = (o->mode & ~0777U) | (in->mode & 0777U);
	o->ctime = ipc_now();
	return 0;
}

long
ipc_stat(struct thread *td, const struct ipc_family *f, int id, int cmd,
    uaddr_t buf)
{
	union {
		struct shmid64_ds shm;
		struct semid64_ds sem;
		struct msqid64_ds msg;
	} ds;
	struct ipc_obj *o;

	VK_ASSERT(f->dslen <= sizeof(ds));
	o = cmd == IPC_STAT ? ipc_lookup(f->ids, id) : ipc_at(f->ids, id);
	if (o == NULL)
		return -EINVAL;
	if (cmd != f->stat_any && !ipc_may(td->proc, o, IPC_MAY_READ))
		return -EACCES;
	f->fill(o, &ds);
	if (copyout(td, &ds, buf, f->dslen) < 0)
		return -EFAULT;
	return cmd == IPC_STAT ? 0 : o->id;
}

bool
ipc_stat_at(const struct ipc_family *f, int idx, void *ds)
{
	struct ipc_obj *o = ipc_at(f->ids, idx);

	if (o == NULL)
		return false;
	f->fill(o, ds);
	return true;
}

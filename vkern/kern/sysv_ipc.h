/*
 * System V IPC: what shared memory, semaphores and message queues have in
 * common (sysv_ipc.c), and each family's entry points for the rest of the
 * kernel (sysv_shm.c, sysv_sem.c, sysv_msg.c).
 *
 * Each family keeps its objects in a table of its own, as Linux's
 * ipc_ids: an object's id is its slot plus its sequence number times
 * IPC_ID_SLOTS, and slots are handed out cyclically, so that an id seen
 * once is not soon given to another object.  Objects are found by key
 * (the *get calls) or by id (the rest).  An object removed while in use
 * (a shared memory segment still attached) leaves the table's keys but
 * keeps its slot until its last user goes.
 *
 * The objects belong to the sandbox, not to a process: they live until
 * removed, like a file system's files, and are charged as such (KM_FS).
 */
#ifndef VK_KERN_SYSV_IPC_H
#define VK_KERN_SYSV_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkern/vk.h"

struct ipc64_perm;
struct proc;
struct thread;

/* Linux's IPCMNI: ids are slot + seq * IPC_ID_SLOTS. */
#define IPC_ID_SLOTS 32768
/* Linux's ipcid_seq_max(): the sequence numbers an id can hold. */
#define IPC_SEQ_MAX (INT32_MAX / IPC_ID_SLOTS)

/* The part of ipc_perm that every object has (Linux's kern_ipc_perm). */
struct ipc_obj {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode;          /* 0777, and the family's flags above them */
	uint16_t seq;
	int id;
	int64_t ctime;          /* CLOCK_REALTIME seconds of the last change */
};

/* A family's table (Linux's ipc_ids). */
struct ipc_ids {
	struct ipc_obj **slot;
	unsigned nslot;         /* allocated slots */
	unsigned in_use;
	int last_idx;           /* the slot handed out last, -1 at first */
	unsigned seq;
};

/*
 * The limits guest root may change through /proc/sys/kernel (Linux's
 * defaults).  shmmni, semmni and msgmni are bounded by IPC_ID_SLOTS.
 */
struct ipc_limits {
	uint64_t shmmax, shmall, shmmni;
	uint64_t sem[4];        /* IPC_SEMMSL...: /proc/sys/kernel/sem's */
	uint64_t msgmax, msgmnb, msgmni;
};
#define IPC_SEMMSL 0            /* semaphores in a set */
#define IPC_SEMMNS 1            /* semaphores in all sets */
#define IPC_SEMOPM 2            /* operations in one semop */
#define IPC_SEMMNI 3            /* sets */
extern struct ipc_limits ipc_lim;

/* What a family tells ipc_get about itself. */
struct ipc_ops {
	/* A new object for key and flg (its mode); returns its id or -errno. */
	long (*create)(struct thread *td, int32_t key, int flg, uint64_t arg);
	/* Checks on an existing object before its permissions, or NULL. */
	int (*more)(struct ipc_obj *o, uint64_t arg);
};

/*
 * shmget/semget/msgget: the object of key (a new one for IPC_PRIVATE, or
 * with IPC_CREAT when none has it), checked against flg as Linux's
 * ipcget() does.  arg is the family's size or count.  Returns the id or
 * -errno.
 */
long ipc_get(struct ipc_ids *ids, const struct ipc_ops *ops,
    struct thread *td, int32_t key, int flg, uint64_t arg);

/*
 * Fill in o's ipc_perm for p, and enter o in ids with the next id.
 * Returns 0, or -ENOSPC when the table holds max objects already, or
 * -ENOMEM.
 */
int ipc_add(struct ipc_ids *ids, struct ipc_obj *o, const struct proc *p,
    int32_t key, int flg, uint64_t max);

/* Take o out of ids: its key and id no longer find it. */
void ipc_remove(struct ipc_ids *ids, struct ipc_obj *o);

/* The live object with id, or NULL. */
struct ipc_obj *ipc_lookup(const struct ipc_ids *ids, int id);

/* The object in slot idx (*_STAT), or NULL. */
struct ipc_obj *ipc_at(const struct ipc_ids *ids, int idx);

/* The highest slot in use, or -1: what IPC_INFO returns. */
int ipc_max_idx(const struct ipc_ids *ids);

/* The access ipc_may() is asked for: Linux's S_IRUGO, S_IWUGO, S_IXUGO. */
#define IPC_MAY_READ  0444
#define IPC_MAY_WRITE 0222
#define IPC_MAY_EXEC  0111

/*
 * Whether p may use o as flg asks (IPC_MAY_* bits, or a *get call's mode
 * bits; 0 for no access), as Linux's ipcperms(): root (CAP_IPC_OWNER)
 * always may.
 */
bool ipc_may(const struct proc *p, const struct ipc_obj *o, int flg);

/*
 * IPC_SET and IPC_RMID: whether p owns o (its uid or creator's) or is
 * root (CAP_SYS_ADMIN).
 */
bool ipc_owner(const struct proc *p, const struct ipc_obj *o);

/*
 * IPC_SET's and IPC_RMID's object, as Linux's ipcctl_obtain_check():
 * id's, if p owns it.  Returns it, or NULL with *errp -EINVAL (no such
 * id) or -EPERM.
 */
struct ipc_obj *ipc_owned(const struct ipc_ids *ids, const struct proc *p,
    int id, int *errp);

/*
 * o's ipc64_perm; IPC_SET's change of uid, gid and mode from in (0, or
 * -EINVAL for an id that is no one's).
 */
void ipc_perm_get(const struct ipc_obj *o, struct ipc64_perm *out);
int ipc_perm_set(struct ipc_obj *o, const struct ipc64_perm *in);

/* CLOCK_REALTIME, in seconds. */
int64_t ipc_now(void);

/*
 * A family as IPC_STAT shows it: its table, its *id64_ds and how to fill
 * one in, and its *_STAT_ANY command.
 */
struct ipc_family {
	struct ipc_ids *ids;
	size_t dslen;
	void (*fill)(const struct ipc_obj *o, void *ds);
	int stat_any;
	/* IPC_RMID of an object, which no process uses any more. */
	void (*destroy)(struct ipc_obj *o);
};
extern const struct ipc_family shm_family, sem_family, msg_family;

/*
 * The sandbox is gone, and every process with it: so are the objects,
 * and the tables start again as a new IPC namespace's.
 */
void ipc_gone(void);

/*
 * IPC_STAT of id, or *_STAT and *_STAT_ANY of slot id, into the guest's
 * buf, as Linux's shmctl_stat() and its twins: read access unless
 * *_STAT_ANY.  Returns 0 (IPC_STAT) or the id, or -errno.
 */
long ipc_stat(struct thread *td, const struct ipc_family *f, int id, int cmd,
    uaddr_t buf);

/* For /proc/sysvipc: the object in slot idx as IPC_STAT shows it. */
bool ipc_stat_at(const struct ipc_family *f, int idx, void *ds);

/* sysv_sem.c: p exits: apply its SEM_UNDO adjustments and drop them. */
void sem_exit(struct proc *p);

#endif

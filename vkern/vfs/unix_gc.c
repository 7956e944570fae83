/*
 * Local sockets: collecting the ones only messages refer to.
 *
 * A socket's file can travel in an SCM_RIGHTS message, into a queue of
 * its own or of a socket that itself travels so: once every descriptor
 * is closed, such a ring of sockets keeps itself alive.  A socket whose
 * file has no references but those in queued messages is a candidate;
 * marking from every other socket through the files queued at it finds
 * the candidates something can still receive.  The rest have their
 * queues emptied, which lets their files go.  It runs when a socket is
 * made and when the sandbox ends, and costs nothing while no socket's
 * file is in a message.
 */
#include <stdlib.h>

#include "vkern/vfs/file.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/unix_sock.h"
#include "vkern/vk.h"

static int inflight_total;

void
usock_inflight(struct file *fp, int d)
{
	struct usock *so = usock_of(fp);

	if (so != NULL) {
		so->inflight += d;
		inflight_total += d;
	}
}

static bool
candidate(const struct usock *so)
{
	return so->sk.fp != NULL && so->inflight > 0 &&
	    so->sk.fp->refs == so->inflight;
}

/* Mark what so's queue holds; true if that marked anything new. */
static bool
mark_from(struct usock *so)
{
	bool more = false;

	for (struct skb *skb = so->rq; skb != NULL; skb = skb->next) {
		for (int i = 0; i < skb->nfds; i++) {
			struct usock *to = usock_of(skb->fds[i]);

			if (to != NULL && !to->gc_alive) {
				to->gc_alive = true;
				more = true;
			}
		}
	}
	return more;
}

void
usock_gc(void)
{
	struct usock *so, **dead;
	bool more = true;
	size_t n = 0, i = 0;

	if (inflight_total == 0)
		return;
	for (so = usock_all; so != NULL; so = so->all_next) {
		so->gc_alive = !candidate(so);
		n += !so->gc_alive;
	}
	while (more) {
		more = false;
		for (so = usock_all; so != NULL; so = so->all_next)
			if (so->gc_alive && mark_from(so))
				more = true;
	}
	if (n == 0)
		return;
	dead = vk_xcalloc(n, sizeof(*dead));
	for (so = usock_all; so != NULL && i < n; so = so->all_next) {
		if (!so->gc_alive) {
			usock_ref(so);
			dead[i++] = so;
		}
	}
	/* Emptying a queue may free other sockets: each is held till now. */
	for (size_t k = 0; k < i; k++)
		usock_purge(dead[k]);
	for (size_t k = 0; k < i; k++)
		usock_rel(dead[k]);
	free(dead);
}

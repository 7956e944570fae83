/*
 * Local sockets as /proc/net/unix and sock_diag show them: the walker of
 * net.h over every socket that still has its file.
 */
#include <netinet/tcp.h>
#include <string.h>

#include "vkern/net/net.h"
#include "vkern/vfs/unix_sock.h"

/* Linux's sk_state of a unix socket. */
static int
usock_tcp_state(const struct usock *so)
{
	switch (so->state) {
	case US_LISTENING:
		return TCP_LISTEN;
	case US_CONNECTED:
		return TCP_ESTABLISHED;
	default:
		return TCP_CLOSE;
	}
}

int
usock_walk(net_sock_fn fn, void *arg)
{
	for (struct usock *so = usock_all; so != NULL; so = so->all_next) {
		struct net_sockinfo si = {
			.family = AF_UNIX,
			.type = so->sk.type,
			.state = usock_tcp_state(so),
			.sun = so->name.len > 0 ? &so->name.sun : NULL,
			.sunlen = so->name.len,
			.rxq = (uint32_t)so->rq_bytes,
			.uid = so->sk.cred.uid,
			.ino = so->sk.ino,
			.refs = so->refs,
		};
		int r;

		if (so->dead)
			continue;
		if (so->state == US_LISTENING) {
			si.rxq = (uint32_t)so->nacc;
			si.txq = (uint32_t)so->backlog;
		}
		if (so->peer != NULL)
			si.peer_ino = so->peer->sk.ino;
		if ((r = fn(arg, &si)) != 0)
			return r;
	}
	return 0;
}

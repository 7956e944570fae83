/*
 * libFuzzer harness of the netlink requests a guest sends to the kernel
 * (vkern/net/netlink_route.c and netlink_diag.c): the input is
 *   how:u8 datagram...
 * where bit 0 of how picks NETLINK_SOCK_DIAG over NETLINK_ROUTE, bit 1 a
 * sender with CAP_NET_ADMIN, bit 2 NETLINK_CAP_ACK, and bits 3-5 the
 * reply datagram that finds the socket's queue full (0: none does).  The
 * datagram is handed over in a heap block of exactly its size, as the
 * socket layer hands it, so that AddressSanitizer sees any read past it.
 *
 * Every reply must be framed as Linux frames it: whole messages with the
 * sender's port id and a type the protocol answers with; NLMSG_ERROR
 * alone in its datagram, with an errno and the request's header (all of
 * the request unless capped); any other within NL_GOODSIZE, with its
 * fixed part and well-formed attributes filling it.  The answer stops at
 * the full queue with its error, and no kernel memory stays taken.
 * Sockets of every kind a sock_diag dump lists exist throughout: local
 * stream, datagram and listening ones, bound or not, TCP and UDP over
 * IPv4 and IPv6, listening and connected.
 */
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/net/netlink.h"
#include "vkern/vfs/socket.h"
#include "vkern/vk.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_PORTID 4242

/* The request being answered. */
static struct {
	bool diag;
	unsigned sent, full_at;   /* datagrams emitted; full_at: 0 never */
	const uint8_t *req;       /* the datagram */
	size_t len;
} fz_nl;

static _Noreturn void
fz_bad(const char *why, const struct nlmsghdr *h)
{
	fprintf(stderr, "fuzz_netlink: %s (len %u type %u flags %#x)\n", why,
	    h->nlmsg_len, h->nlmsg_type, h->nlmsg_flags);
	abort();
}

/* The fixed part after the header of a reply, as sent; 0: no reply. */
static size_t
fz_fixed(const struct nlmsghdr *h)
{
	const uint8_t *family = NLMSG_DATA(h);

	if (h->nlmsg_type == NLMSG_DONE)
		return sizeof(int);
	if (fz_nl.diag)
		return h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len <= NLMSG_HDRLEN ? 0 : *family == AF_UNIX ?
		    sizeof(struct unix_diag_msg) : sizeof(struct inet_diag_msg);
	switch (h->nlmsg_type) {
	case RTM_NEWLINK:
		return sizeof(struct ifinfomsg);
	case RTM_NEWADDR:
		return sizeof(struct ifaddrmsg);
	case RTM_NEWROUTE:
		return sizeof(struct rtmsg);
	}
	return 0;
}

/*
 * The message of the request that a reply to h answers: one with its
 * sequence number, as netlink_rcv_skb() walks the datagram; with echo
 * (an error's copy of it), the one that has those n bytes.
 */
static void
fz_check_answers(const struct nlmsghdr *h, const void *echo, size_t n)
{
	const uint8_t *p = fz_nl.req;
	size_t len = fz_nl.len;

	while (len >= NLMSG_HDRLEN) {
		const struct nlmsghdr *q = (const void *)p;
		size_t step = VK_MIN((size_t)NLMSG_ALIGN(q->nlmsg_len), len);

		if (q->nlmsg_len < NLMSG_HDRLEN || q->nlmsg_len > len)
			break;
		if (q->nlmsg_seq == h->nlmsg_seq && (echo == NULL ||
		    (n <= q->nlmsg_len && memcmp(q, echo, n) == 0)))
			return;
		p += step;
		len -= step;
	}
	fz_bad("reply to no request", h);
}

/* NLMSG_ERROR: an errno and the request's header, or all of it. */
static void
fz_check_error(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		fz_bad("short error", h);
	if (e->error > 0 || e->error < -4095)
		fz_bad("no errno", h);
	if (h->nlmsg_len != NLMSG_LENGTH(sizeof(int)) +
	    ((h->nlmsg_flags & NLM_F_CAPPED) ? NLMSG_HDRLEN :
	    e->msg.nlmsg_len))
		fz_bad("error echoes what the request was not", h);
	fz_check_answers(h, &e->msg, h->nlmsg_len - NLMSG_LENGTH(sizeof(int)));
}

/* A reply other than an error: its fixed part, then whole attributes. */
static void
fz_check_reply(const struct nlmsghdr *h)
{
	size_t fixed = fz_fixed(h), off;

	if (fixed == 0)
		fz_bad("reply of a type the protocol does not send", h);
	if (h->nlmsg_len < NLMSG_LENGTH(fixed))
		fz_bad("reply shorter than its fixed part", h);
	for (off = NLMSG_SPACE(fixed); off + sizeof(struct rtattr) <=
	    h->nlmsg_len;) {
		const struct rtattr *a = (const void *)((const uint8_t *)h + off);

		if (a->rta_len < sizeof(*a) || off + a->rta_len > h->nlmsg_len)
			fz_bad("attribute out of its message", h);
		off += RTA_ALIGN(a->rta_len);
	}
	if (off != NLMSG_ALIGN(h->nlmsg_len))
		fz_bad("bytes after the attributes", h);
}

static int
fz_emit(void *arg, const void *dgram, size_t len)
{
	const uint8_t *b = dgram;
	size_t off = 0;

	if (fz_nl.full_at != 0 && fz_nl.sent >= fz_nl.full_at)
		fz_bad("datagram after a full queue", dgram);
	if (len < NLMSG_HDRLEN || len % 4 != 0)
		fz_bad("datagram not of whole messages", dgram);
	while (off < len) {
		const struct nlmsghdr *h = (const void *)(b + off);

		if (len - off < NLMSG_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN ||
		    NLMSG_ALIGN(h->nlmsg_len) > len - off)
			fz_bad("message out of its datagram", h);
		if (h->nlmsg_pid != FZ_PORTID)
			fz_bad("reply to another port", h);
		fz_check_answers(h, NULL, 0);
		if (h->nlmsg_type == NLMSG_ERROR) {
			if (off != 0 || NLMSG_ALIGN(h->nlmsg_len) != len)
				fz_bad("error not alone", h);
			fz_check_error(h);
		} else {
			if (len > NL_GOODSIZE)
				fz_bad("datagram over NL_GOODSIZE", h);
			fz_check_reply(h);
		}
		off += NLMSG_ALIGN(h->nlmsg_len);
	}
	if (++fz_nl.sent == fz_nl.full_at)
		return -ENOBUFS;
	return 0;
}

/* Sockets for the dumps to list, as a guest would have made them. */
static void
fz_sockets(void)
{
	static struct proc p;     /* root, for the binds */
	struct ucred cred = { .pid = 1 };
	struct socket *so, *pair[2], *tcp4 = NULL;
	struct sockname sn = { .len = sizeof(struct sockaddr_in) };
	const void *chan;

	/* Local: a listener with an abstract name, pairs, one unbound. */
	if (sock_family(AF_UNIX)->create(SOCK_STREAM, 0, &cred, &so) == 0) {
		struct sockname un = { .len = sizeof(sa_family_t) + 4 };

		un.sun.sun_family = AF_UNIX;
		memcpy(un.sun.sun_path, "\0fzl", 4);
		(void)so->ops->bind(&p, so, &un);
		(void)so->ops->listen(so, 4, &cred);
	}
	(void)sock_family(AF_UNIX)->pair(SOCK_STREAM, 0, &cred, pair);
	(void)sock_family(AF_UNIX)->pair(SOCK_DGRAM, 0, &cred, pair);
	(void)sock_family(AF_UNIX)->create(SOCK_SEQPACKET, 0, &cred, &so);
	/* TCP listening and connected, UDP bound, over IPv4 and IPv6. */
	sn.sin.sin_family = AF_INET;
	sn.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sn.sin.sin_port = htons(8080);
	if (sock_family(AF_INET)->create(SOCK_STREAM, 0, &cred, &tcp4) == 0) {
		(void)tcp4->ops->bind(&p, tcp4, &sn);
		(void)tcp4->ops->listen(tcp4, 4, &cred);
	}
	if (sock_family(AF_INET)->create(SOCK_STREAM, 0, &cred, &so) == 0)
		(void)so->ops->connect(&p, so, &sn, &cred, true, &chan);
	sn.sin.sin_port = htons(5353);
	if (sock_family(AF_INET)->create(SOCK_DGRAM, 0, &cred, &so) == 0)
		(void)so->ops->bind(&p, so, &sn);
	sn = (struct sockname){ .len = sizeof(struct sockaddr_in6) };
	sn.sin6.sin6_family = AF_INET6;
	sn.sin6.sin6_addr = in6addr_loopback;
	sn.sin6.sin6_port = htons(8080);
	if (sock_family(AF_INET6)->create(SOCK_STREAM, 0, &cred, &so) == 0) {
		(void)so->ops->bind(&p, so, &sn);
		(void)so->ops->listen(so, 4, &cred);
	}
	if (sock_family(AF_INET6)->create(SOCK_DGRAM, 0, &cred, &so) == 0)
		(void)so->ops->bind(&p, so, &sn);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct kern_config cfg = { .mem = 64 << 20 };

	kern_init(&cfg);
	fz_sockets();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl_sender who = { .portid = FZ_PORTID, .uid = 1000 };
	uint64_t charged = kmem_charged(0);
	uint8_t *buf;
	int r;

	if (size < 1)
		return 0;
	fz_nl.diag = data[0] & 1;
	fz_nl.full_at = (data[0] >> 3) & 7;
	fz_nl.sent = 0;
	who.admin = (data[0] & 2) != 0;
	who.cap_ack = (data[0] & 4) != 0;
	if ((buf = malloc(size - 1 + (size == 1))) == NULL)
		abort();
	memcpy(buf, data + 1, size - 1);
	fz_nl.req = buf;
	fz_nl.len = size - 1;
	r = (fz_nl.diag ? nldiag_input : nlroute_input)(buf, size - 1, &who,
	    fz_emit, NULL);
	if (r != (fz_nl.full_at != 0 && fz_nl.sent >= fz_nl.full_at ?
	    -ENOBUFS : 0)) {
		fprintf(stderr, "fuzz_netlink: input gave %d\n", r);
		abort();
	}
	if (kmem_charged(0) != charged) {
		fprintf(stderr, "fuzz_netlink: kernel memory kept\n");
		abort();
	}
	free(buf);
	return 0;
}

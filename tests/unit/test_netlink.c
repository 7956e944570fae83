/*
 * NETLINK_ROUTE's answers (vkern/net/netlink_route.c) to well-formed and
 * broken requests, byte for byte where Linux fixes them: dumps of lo, its
 * addresses and routes ending in NLMSG_DONE, single gets, acks, the
 * errors of rtnetlink for changes, unknown types and bad lengths, and no
 * crash on random bytes; and NETLINK_SOCK_DIAG's (netlink_diag.c): dumps
 * and gets of the sockets there are, and sock_diag's errors.
 */
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/kern/kern.h"
#include "vkern/net/netlink.h"
#include "vkern/vfs/socket.h"
#include "vkern/vk.h"

#define MAXDG 16

/* The datagrams one request gave. */
static struct {
	uint8_t *d[MAXDG];
	size_t len[MAXDG];
	int n;
	int fail_at;             /* emit's -ENOBUFS from this one on; -1 never */
} got;

static int
collect(void *arg, const void *dgram, size_t len)
{
	if (got.fail_at >= 0 && got.n >= got.fail_at)
		return -ENOBUFS;
	cr_assert_lt(got.n, MAXDG);
	cr_assert_eq(len % 4, 0, "datagram of %zu bytes", len);
	got.d[got.n] = malloc(len);
	memcpy(got.d[got.n], dgram, len);
	got.len[got.n++] = len;
	return 0;
}

static void
setup(void)
{
	struct kern_config cfg = { .mem = 64 << 20 };

	kern_init(&cfg);
	got.fail_at = -1;
}

/* Forget the datagrams collected so far. */
static void
got_reset(void)
{
	for (int i = 0; i < got.n; i++)
		free(got.d[i]);
	got.n = 0;
}

static void
teardown(void)
{
	got_reset();
}

TestSuite(netlink, .init = setup, .fini = teardown);

static const struct nl_sender user = { .portid = 4242 };
static const struct nl_sender admin = { .portid = 7, .admin = true };

/* A request: header, then a fixed part of n bytes at body. */
struct req {
	struct nlmsghdr h;
	uint8_t body[64];
};

static size_t
mkreq(struct req *r, int type, int flags, const void *body, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = (uint32_t)NLMSG_LENGTH(n);
	r->h.nlmsg_type = (uint16_t)type;
	r->h.nlmsg_flags = (uint16_t)flags;
	r->h.nlmsg_seq = 99;
	if (n > 0)
		memcpy(r->body, body, n);
	return r->h.nlmsg_len;
}

typedef int (*input_fn)(const void *, size_t, const struct nl_sender *,
    nl_emit_fn, void *);

/* One request to a protocol's input. */
static int
request(input_fn input, const struct nl_sender *who, int type, int flags,
    const void *body, size_t n)
{
	struct req r;
	size_t len = mkreq(&r, type, flags, body, n);

	return input(&r, len, who, collect, NULL);
}

static int
send_req(const struct nl_sender *who, int type, int flags, const void *body,
    size_t n)
{
	return request(nlroute_input, who, type, flags, body, n);
}

/* The messages of datagram i, in order, into msgs; returns the count. */
static int
split(int i, const struct nlmsghdr **msgs, int max)
{
	const uint8_t *p = got.d[i];
	size_t left = got.len[i];
	int n = 0;

	while (left >= NLMSG_HDRLEN) {
		const struct nlmsghdr *h = (const void *)p;

		cr_assert_geq(h->nlmsg_len, NLMSG_HDRLEN);
		cr_assert_leq(h->nlmsg_len, left);
		cr_assert_lt(n, max);
		msgs[n++] = h;
		p += NLMSG_ALIGN(h->nlmsg_len);
		left -= VK_MIN(left, (size_t)NLMSG_ALIGN(h->nlmsg_len));
	}
	cr_assert_eq(left, 0);
	return n;
}

static const struct rtattr *
attr(const struct nlmsghdr *h, size_t hdrlen, int type)
{
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(hdrlen);
	const struct rtattr *a = (const void *)((const uint8_t *)NLMSG_DATA(h) +
	    NLMSG_ALIGN(hdrlen));

	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == type)
			return a;
	return NULL;
}

/* The errno of an NLMSG_ERROR message, which echoes request r. */
static int
error_of(const struct nlmsghdr *h, uint32_t portid)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);

	cr_assert_eq(h->nlmsg_type, NLMSG_ERROR);
	cr_assert_eq(h->nlmsg_seq, 99);
	cr_assert_eq(h->nlmsg_pid, portid);
	cr_assert_eq(e->msg.nlmsg_seq, 99);
	return e->error;
}

static void
check_done(const struct nlmsghdr *h)
{
	cr_assert_eq(h->nlmsg_type, NLMSG_DONE);
	cr_assert_eq(h->nlmsg_flags, NLM_F_MULTI);
	cr_assert_eq(h->nlmsg_len, NLMSG_LENGTH(sizeof(int)));
	cr_assert_eq(*(const int *)NLMSG_DATA(h), 0);
}

Test(netlink, getlink_dump_gives_lo_then_done)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	const struct nlmsghdr *m[8];
	const struct ifinfomsg *li;
	const struct rtattr *a;

	cr_assert_eq(send_req(&user, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP,
	    &ifi, sizeof(ifi)), 0);
	cr_assert_eq(got.n, 1);
	cr_assert_eq(split(0, m, 8), 2);
	cr_assert_eq(m[0]->nlmsg_type, RTM_NEWLINK);
	cr_assert_eq(m[0]->nlmsg_flags, NLM_F_MULTI);
	cr_assert_eq(m[0]->nlmsg_seq, 99);
	cr_assert_eq(m[0]->nlmsg_pid, 4242);
	li = NLMSG_DATA(m[0]);
	cr_assert_eq(li->ifi_index, 1);
	cr_assert_eq(li->ifi_type, 772);      /* ARPHRD_LOOPBACK */
	cr_assert_eq(li->ifi_flags & (IFF_UP | IFF_LOOPBACK | IFF_RUNNING),
	    IFF_UP | IFF_LOOPBACK | IFF_RUNNING);
	cr_assert_not_null(a = attr(m[0], sizeof(*li), IFLA_IFNAME));
	cr_assert_str_eq(RTA_DATA(a), "lo");
	cr_assert_not_null(a = attr(m[0], sizeof(*li), IFLA_MTU));
	cr_assert_eq(*(const uint32_t *)RTA_DATA(a), 65536);
	cr_assert_not_null(attr(m[0], sizeof(*li), IFLA_STATS64));
	check_done(m[1]);
}

/* A family byte alone is enough (rtgenmsg), as old programs send. */
Test(netlink, getaddr_dump_by_family)
{
	static const struct { int family, n; } rows[] = {
		{ AF_UNSPEC, 2 }, { AF_INET, 1 }, { AF_INET6, 1 },
		{ AF_PACKET, 2 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct rtgenmsg g = { .rtgen_family = (uint8_t)rows[i].family };
		const struct nlmsghdr *m[8];
		int n;

		got_reset();
		cr_assert_eq(send_req(&user, RTM_GETADDR, NLM_F_REQUEST |
		    NLM_F_DUMP, &g, sizeof(g)), 0);
		cr_assert_eq(got.n, 1);
		n = split(0, m, 8);
		cr_assert_eq(n, rows[i].n + 1, "family %d: %d", rows[i].family,
		    n);
		check_done(m[n - 1]);
		for (int k = 0; k < n - 1; k++) {
			const struct ifaddrmsg *ifa = NLMSG_DATA(m[k]);
			const struct rtattr *a = attr(m[k], sizeof(*ifa),
			    IFA_ADDRESS);
			static const uint8_t lo6[16] = { [15] = 1 };
			static const uint8_t lo4[4] = { 127, 0, 0, 1 };

			cr_assert_eq(m[k]->nlmsg_type, RTM_NEWADDR);
			cr_assert_eq(ifa->ifa_index, 1);
			cr_assert_eq(ifa->ifa_scope, RT_SCOPE_HOST);
			cr_assert_not_null(a);
			if (ifa->ifa_family == AF_INET) {
				cr_assert_eq(ifa->ifa_prefixlen, 8);
				cr_assert_eq(RTA_PAYLOAD(a), 4);
				cr_assert_arr_eq(RTA_DATA(a), lo4, 4);
				cr_assert_not_null(attr(m[k], sizeof(*ifa),
				    IFA_LOCAL));
			} else {
				cr_assert_eq(ifa->ifa_family, AF_INET6);
				cr_assert_eq(ifa->ifa_prefixlen, 128);
				cr_assert_arr_eq(RTA_DATA(a), lo6, 16);
			}
		}
	}
}

Test(netlink, getroute_dump_local_table)
{
	struct rtmsg rt = { .rtm_family = AF_INET };
	const struct nlmsghdr *m[8];
	int n;

	cr_assert_eq(send_req(&user, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP,
	    &rt, sizeof(rt)), 0);
	n = split(0, m, 8);
	cr_assert_eq(n, 4);
	for (int k = 0; k < 3; k++) {
		const struct rtmsg *r = NLMSG_DATA(m[k]);

		cr_assert_eq(m[k]->nlmsg_type, RTM_NEWROUTE);
		cr_assert_eq(r->rtm_family, AF_INET);
		cr_assert_eq(r->rtm_table, RT_TABLE_LOCAL);
		cr_assert_not_null(attr(m[k], sizeof(*r), RTA_OIF));
	}
	check_done(m[3]);
}

/* Dumps of what vkernel has none of are empty, as on Linux without any. */
Test(netlink, other_dumps_are_empty)
{
	struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
	const struct nlmsghdr *m[4];

	cr_assert_eq(send_req(&user, RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP,
	    &g, sizeof(g)), 0);
	cr_assert_eq(split(0, m, 4), 1);
	check_done(m[0]);
}

Test(netlink, getlink_one_by_index_and_name)
{
	struct { struct ifinfomsg ifi; struct rtattr a; char name[4]; } q = {
		.a = { .rta_len = RTA_LENGTH(3), .rta_type = IFLA_IFNAME },
		.name = "lo",
	};
	const struct nlmsghdr *m[4];

	q.ifi.ifi_index = 1;
	cr_assert_eq(send_req(&user, RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK,
	    &q.ifi, sizeof(q.ifi)), 0);
	cr_assert_eq(got.n, 2);
	cr_assert_eq(split(0, m, 4), 1);
	cr_assert_eq(m[0]->nlmsg_type, RTM_NEWLINK);
	cr_assert_eq(m[0]->nlmsg_flags, 0);
	split(1, m, 4);
	cr_assert_eq(error_of(m[0], 4242), 0);
	cr_assert_eq(m[0]->nlmsg_flags, NLM_F_CAPPED);

	got_reset();
	q.ifi.ifi_index = 0;
	cr_assert_eq(send_req(&user, RTM_GETLINK, NLM_F_REQUEST, &q,
	    sizeof(q)), 0);
	cr_assert_eq(got.n, 1);
	split(0, m, 4);
	cr_assert_eq(m[0]->nlmsg_type, RTM_NEWLINK);
}

Test(netlink, getlink_errors)
{
	struct { struct ifinfomsg ifi; struct rtattr a; char name[4]; } q = {
		.a = { .rta_len = RTA_LENGTH(3), .rta_type = IFLA_IFNAME },
		.name = "xy",
	};
	const struct nlmsghdr *m[4];
	static const struct { int index; size_t len; int err; } rows[] = {
		{ 7, sizeof(struct ifinfomsg), -ENODEV },
		{ 0, sizeof(struct ifinfomsg), -EINVAL },   /* neither */
		{ 0, sizeof(q), -ENODEV },                  /* no "xy" */
		{ 1, 4, -EINVAL },                          /* short header */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		got_reset();
		q.ifi.ifi_index = rows[i].index;
		cr_assert_eq(send_req(&user, RTM_GETLINK, NLM_F_REQUEST, &q,
		    rows[i].len), 0);
		cr_assert_eq(got.n, 1);
		cr_assert_eq(split(0, m, 4), 1);
		cr_assert_eq(error_of(m[0], 4242), rows[i].err, "row %zu", i);
		/* An error echoes the whole request. */
		cr_assert_eq(m[0]->nlmsg_len, NLMSG_LENGTH(sizeof(int)) +
		    NLMSG_LENGTH(rows[i].len));
	}
}

Test(netlink, changes_are_eperm_or_eopnotsupp)
{
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_index = 1 };
	struct nl_sender capped = admin;
	const struct nlmsghdr *m[4];

	cr_assert_eq(send_req(&user, RTM_NEWADDR, NLM_F_REQUEST | NLM_F_ACK,
	    &ifa, sizeof(ifa)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 4242), -EPERM);
	got_reset();
	cr_assert_eq(send_req(&admin, RTM_DELROUTE, NLM_F_REQUEST, &ifa,
	    sizeof(ifa)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 7), -EOPNOTSUPP);
	/* NETLINK_CAP_ACK: the request's header only. */
	got_reset();
	capped.cap_ack = true;
	cr_assert_eq(send_req(&capped, RTM_NEWADDR, NLM_F_REQUEST, &ifa,
	    sizeof(ifa)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 7), -EOPNOTSUPP);
	cr_assert_eq(m[0]->nlmsg_flags, NLM_F_CAPPED);
	cr_assert_eq(m[0]->nlmsg_len, NLMSG_LENGTH(sizeof(struct nlmsgerr)));
}

/* Root's link requests that change nothing succeed; the rest do not. */
Test(netlink, setlink_noop_only)
{
	struct {
		struct ifinfomsg ifi;
		struct rtattr a;
		uint32_t v;
	} q;
	static const struct {
		int type, flags, index;
		unsigned ifl, change;
		int attr, err;
	} rows[] = {
		{ RTM_NEWLINK, 0, 1, IFF_UP, IFF_UP, 0, 0 },   /* set lo up */
		{ RTM_SETLINK, 0, 1, IFF_UP, IFF_UP, 0, 0 },
		{ RTM_NEWLINK, 0, 1, 0, 0, 0, 0 },             /* nothing */
		{ RTM_NEWLINK, 0, 1, 0, IFF_UP, 0, -EOPNOTSUPP },   /* down */
		{ RTM_NEWLINK, 0, 1, IFF_PROMISC, IFF_PROMISC, 0, -EOPNOTSUPP },
		{ RTM_NEWLINK, 0, 1, IFF_UP, IFF_UP, IFLA_MTU, -EOPNOTSUPP },
		{ RTM_NEWLINK, 0, 9, 0, 0, 0, -ENODEV },
		{ RTM_NEWLINK, NLM_F_CREATE, 9, 0, 0, 0, -EOPNOTSUPP },
		{ RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 1, 0, 0, 0, -EEXIST },
		{ RTM_NEWLINK, 0, 0, 0, 0, 0, -EINVAL },       /* no name */
	};
	const struct nlmsghdr *m[4];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&q, 0, sizeof(q));
		q.ifi.ifi_index = rows[i].index;
		q.ifi.ifi_flags = rows[i].ifl;
		q.ifi.ifi_change = rows[i].change;
		q.a = (struct rtattr){ RTA_LENGTH(4), (unsigned short)rows[i].attr };
		q.v = 1500;
		got_reset();
		cr_assert_eq(send_req(&admin, rows[i].type, NLM_F_REQUEST |
		    NLM_F_ACK | rows[i].flags, &q, rows[i].attr != 0 ?
		    sizeof(q) : sizeof(q.ifi)), 0);
		cr_assert_eq(split(0, m, 4), 1);
		cr_assert_eq(error_of(m[0], 7), rows[i].err, "row %zu", i);
	}
	/* By name alone. */
	memset(&q, 0, sizeof(q));
	q.a = (struct rtattr){ RTA_LENGTH(3), IFLA_IFNAME };
	memcpy(&q.v, "lo", 3);
	got_reset();
	cr_assert_eq(send_req(&admin, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK,
	    &q, sizeof(q)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 7), 0);
}

Test(netlink, unknown_type_eopnotsupp)
{
	struct rtgenmsg g = { 0 };
	const struct nlmsghdr *m[4];

	cr_assert_eq(send_req(&user, RTM_MAX + 1, NLM_F_REQUEST | NLM_F_DUMP,
	    &g, sizeof(g)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 4242), -EOPNOTSUPP);
	got_reset();
	cr_assert_eq(send_req(&user, 0xffff, NLM_F_REQUEST, &g, sizeof(g)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 4242), -EOPNOTSUPP);
	/* A get of addresses alone (no dump) has no handler in IPv4. */
	got_reset();
	cr_assert_eq(send_req(&user, RTM_GETADDR, NLM_F_REQUEST, &g,
	    sizeof(g)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 4242), -EOPNOTSUPP);
}

/* What netlink_rcv_skb() skips or only acks. */
Test(netlink, short_and_control_messages)
{
	struct req r;
	size_t len;
	const struct nlmsghdr *m[4];

	/* Shorter than a header; a length below or past the datagram. */
	len = mkreq(&r, RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, NULL, 0);
	cr_assert_eq(nlroute_input(&r, 15, &user, collect, NULL), 0);
	cr_assert_eq(nlroute_input(&r, 0, &user, collect, NULL), 0);
	r.h.nlmsg_len = 15;
	cr_assert_eq(nlroute_input(&r, len, &user, collect, NULL), 0);
	r.h.nlmsg_len = 17;
	cr_assert_eq(nlroute_input(&r, 16, &user, collect, NULL), 0);
	r.h.nlmsg_len = 0xffffffff;
	cr_assert_eq(nlroute_input(&r, sizeof(r), &user, collect, NULL), 0);
	cr_assert_eq(got.n, 0);
	/* No family byte: ignored, acked when asked. */
	len = mkreq(&r, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, NULL, 0);
	cr_assert_eq(nlroute_input(&r, len, &user, collect, NULL), 0);
	cr_assert_eq(got.n, 0);
	r.h.nlmsg_flags |= NLM_F_ACK;
	cr_assert_eq(nlroute_input(&r, len, &user, collect, NULL), 0);
	cr_assert_eq(got.n, 1);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 4242), 0);
	/* Not a request, or a control type: only the ack. */
	got_reset();
	len = mkreq(&r, RTM_NEWADDR, NLM_F_ACK, "x", 1);
	cr_assert_eq(nlroute_input(&r, len, &user, collect, NULL), 0);
	len = mkreq(&r, NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK, "x", 1);
	cr_assert_eq(nlroute_input(&r, len, &user, collect, NULL), 0);
	len = mkreq(&r, NLMSG_NOOP, NLM_F_REQUEST, "x", 1);
	cr_assert_eq(nlroute_input(&r, len, &user, collect, NULL), 0);
	cr_assert_eq(got.n, 2);
	for (int i = 0; i < 2; i++) {
		split(i, m, 4);
		cr_assert_eq(error_of(m[0], 4242), 0);
	}
}

/* Several messages in one datagram are answered in order. */
Test(netlink, batch_in_order_then_truncated_tail)
{
	struct rtgenmsg g = { .rtgen_family = AF_INET6 };
	uint8_t buf[256];
	struct req r;
	size_t len, off = 0;
	const struct nlmsghdr *m[4];

	len = mkreq(&r, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, &g, 1);
	memcpy(buf, &r, len);
	off += NLMSG_ALIGN(len);
	len = mkreq(&r, RTM_NEWLINK, NLM_F_REQUEST, &g, 1);
	memcpy(buf + off, &r, len);
	off += NLMSG_ALIGN(len);
	/* A third whose length runs past the end: dropped. */
	len = mkreq(&r, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, &g, 1);
	r.h.nlmsg_len = 200;
	memcpy(buf + off, &r, len);
	off += len;
	cr_assert_eq(nlroute_input(buf, off, &user, collect, NULL), 0);
	cr_assert_eq(got.n, 2);
	cr_assert_eq(split(0, m, 4), 2);
	cr_assert_eq(m[0]->nlmsg_type, RTM_NEWADDR);
	split(1, m, 4);
	cr_assert_eq(error_of(m[0], 4242), -EPERM);
}

Test(netlink, emit_error_stops)
{
	struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };

	got.fail_at = 0;
	cr_assert_eq(send_req(&user, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP,
	    &g, sizeof(g)), -ENOBUFS);
	cr_assert_eq(got.n, 0);
}

static int
count_only(void *arg, const void *dgram, size_t len)
{
	const struct nlmsghdr *h = dgram;

	cr_assert_geq(len, NLMSG_HDRLEN);
	cr_assert_leq(h->nlmsg_len, len);
	(*(int *)arg)++;
	return 0;
}

/* Random requests, mostly well-framed, never crash nor misframe. */
Test(netlink, random_bytes)
{
	static uint32_t buf[1024];
	unsigned seed = 12345;
	int n = 0;

	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)rand_r(&seed) % sizeof(buf);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		struct nl_sender who = { .portid = 1, .admin = i & 1,
		    .cap_ack = i & 2 };

		for (size_t k = 0; k < sizeof(buf) / 4; k++)
			buf[k] = (uint32_t)rand_r(&seed);
		if (i % 3 != 0) {
			h->nlmsg_len = (uint32_t)(len > 0 ? (size_t)rand_r(&seed) %
			    (len + 1) : 0);
			h->nlmsg_type = (uint16_t)(RTM_BASE + rand_r(&seed) %
			    (RTM_MAX - RTM_BASE + 8));
			/* sock_diag's: a family byte it knows, often. */
			if (i & 4 && i % 5 != 0) {
				h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
				((uint8_t *)buf)[16] = (uint8_t)(i % 7 < 3 ?
				    AF_UNIX : AF_INET);
			}
			h->nlmsg_flags = (uint16_t)(rand_r(&seed) & 0x31f);
		}
		cr_assert_eq((i & 4 ? nldiag_input : nlroute_input)(buf, len,
		    &who, count_only, &n), 0);
	}
	cr_assert_gt(n, 1000);
}

/* --- NETLINK_SOCK_DIAG --- */

static int
diag_req(const struct nl_sender *who, int type, int flags, const void *body,
    size_t n)
{
	return request(nldiag_input, who, type, flags, body, n);
}

Test(netlink, diag_errors)
{
	struct unix_diag_req u = { .sdiag_family = AF_UNIX };
	struct inet_diag_req_v2 in = { .sdiag_family = AF_INET,
	    .sdiag_protocol = 99 };
	static const struct { int type, family; size_t len; int err; } rows[] = {
		{ SOCK_DIAG_BY_FAMILY, AF_MAX, sizeof(u), -EINVAL },
		{ SOCK_DIAG_BY_FAMILY, AF_PACKET, sizeof(u), -ENOENT },
		{ SOCK_DIAG_BY_FAMILY, AF_UNIX, 1, -EINVAL },
		{ SOCK_DIAG_BY_FAMILY, AF_UNIX, sizeof(u) - 1, -EINVAL },
		{ 99, AF_UNIX, sizeof(u), -EINVAL },
		{ SOCK_DESTROY, AF_UNIX, sizeof(u), -EPERM },
	};
	const struct nlmsghdr *m[4];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		got_reset();
		u.sdiag_family = (uint8_t)rows[i].family;
		cr_assert_eq(diag_req(&user, rows[i].type, NLM_F_REQUEST |
		    NLM_F_DUMP, &u, rows[i].len), 0);
		split(0, m, 4);
		cr_assert_eq(error_of(m[0], 4242), rows[i].err, "row %zu", i);
	}
	got_reset();
	cr_assert_eq(diag_req(&user, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST |
	    NLM_F_DUMP, &in, sizeof(in)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 4242), -ENOENT);
}

/* A dump lists the sockets there are; a get of one that is not, ENOENT. */
Test(netlink, diag_unix_dump_and_get)
{
	struct ucred cred = { .pid = 1, .uid = 1000, .gid = 100 };
	struct unix_diag_req u = { .sdiag_family = AF_UNIX,
	    .udiag_states = ~0u, .udiag_show = UDIAG_SHOW_RQLEN };
	struct inet_diag_req_v2 in = { .sdiag_family = AF_INET,
	    .sdiag_protocol = IPPROTO_TCP, .idiag_states = ~0u };
	const struct nlmsghdr *m[4];
	const struct unix_diag_msg *d;
	struct socket *so;

	cr_assert_eq(sock_family(AF_UNIX)->create(SOCK_STREAM, 0, &cred,
	    &so), 0);
	cr_assert_eq(diag_req(&user, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST |
	    NLM_F_DUMP, &u, sizeof(u)), 0);
	cr_assert_eq(split(0, m, 4), 2);
	cr_assert_eq(m[0]->nlmsg_type, SOCK_DIAG_BY_FAMILY);
	d = NLMSG_DATA(m[0]);
	cr_assert_eq(d->udiag_family, AF_UNIX);
	cr_assert_eq(d->udiag_type, SOCK_STREAM);
	cr_assert_eq(d->udiag_ino, so->ino);
	cr_assert_not_null(attr(m[0], sizeof(*d), UNIX_DIAG_RQLEN));
	cr_assert_null(attr(m[0], sizeof(*d), UNIX_DIAG_NAME));
	check_done(m[1]);
	/* Only the states asked for. */
	got_reset();
	u.udiag_states = 1u << 10;      /* TCP_LISTEN */
	cr_assert_eq(diag_req(&user, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST |
	    NLM_F_DUMP, &u, sizeof(u)), 0);
	cr_assert_eq(split(0, m, 4), 1);
	/* One by inode number, then one that is not there. */
	got_reset();
	u.udiag_ino = (uint32_t)so->ino;
	cr_assert_eq(diag_req(&user, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &u,
	    sizeof(u)), 0);
	cr_assert_eq(split(0, m, 4), 1);
	cr_assert_eq(m[0]->nlmsg_type, SOCK_DIAG_BY_FAMILY);
	got_reset();
	u.udiag_ino = 7;
	cr_assert_eq(diag_req(&user, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &u,
	    sizeof(u)), 0);
	split(0, m, 4);
	cr_assert_eq(error_of(m[0], 4242), -ENOENT);
	/* No inet family lists sockets here: the dump is empty. */
	got_reset();
	cr_assert_eq(diag_req(&user, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST |
	    NLM_F_DUMP, &in, sizeof(in)), 0);
	cr_assert_eq(split(0, m, 4), 1);
	check_done(m[0]);
	so->ops->release(so);
}

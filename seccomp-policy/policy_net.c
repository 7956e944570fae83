/*
 * The host network's allow-list, added only with --net=host
 * (host-linux/hostnet.c makes these calls).  Sockets are made only of
 * AF_INET or AF_INET6, SOCK_STREAM or SOCK_DGRAM, non-blocking and
 * close-on-exec, protocol 0: no raw, packet, netlink or local socket
 * can be made.  The other calls work on descriptors vkernel holds.
 * Options are pinned by level and name to platform_net.h's list;
 * FIONREAD and TIOCOUTQ, close and ppoll are in the main list already.
 */
#include <sys/socket.h>

#include "seccomp-policy/policy.h"
#include "vkern/platform_net.h"

#define NET_TYPE(t) ((t) | SOCK_NONBLOCK | SOCK_CLOEXEC)

#define SOCKET_RULE(af, t, what) \
	{ { "socket", POLICY_EQ, 0, af, "a guest's " what " socket" }, 2, \
	    { { 1, NET_TYPE(t) }, { 2, 0 } } }

#define OPT_RULES(level, name, why) \
	{ { "setsockopt", POLICY_EQ, 1, level, "set " #name ": " why }, 1, \
	    { { 2, name }, { 0, 0 } } }, \
	{ { "getsockopt", POLICY_EQ, 1, level, "get " #name ": " why }, 1, \
	    { { 2, name }, { 0, 0 } } },

/* A rule with no more checks than its own. */
#define ONE(...) { { __VA_ARGS__ }, 0, { { 0, 0 }, { 0, 0 } } }

const struct policy_net_rule policy_net_rules[] = {
	SOCKET_RULE(AF_INET, SOCK_STREAM, "TCP"),
	SOCKET_RULE(AF_INET, SOCK_DGRAM, "UDP"),
	SOCKET_RULE(AF_INET6, SOCK_STREAM, "TCP over IPv6"),
	SOCKET_RULE(AF_INET6, SOCK_DGRAM, "UDP over IPv6"),
	ONE("bind", POLICY_ANY, 0, 0,
	    "a guest's socket takes its address or port"),
	ONE("listen", POLICY_ANY, 0, 0, "a guest's server listens"),
	ONE("connect", POLICY_ANY, 0, 0,
	    "a guest's socket connects to its peer (UDP: sets it)"),
	ONE("accept4", POLICY_EQ, 3, SOCK_NONBLOCK | SOCK_CLOEXEC,
	    "a guest's server takes a connection, as a non-blocking socket"),
	ONE("shutdown", POLICY_ANY, 0, 0, "a guest's half-close"),
	ONE("getsockname", POLICY_ANY, 0, 0, "a guest socket's address"),
	ONE("getpeername", POLICY_ANY, 0, 0, "a guest socket's peer"),
	ONE("sendto", POLICY_MASK0, 3,
	    ~(uint64_t)(MSG_MORE | MSG_DONTWAIT | MSG_NOSIGNAL),
	    "a guest's data out, never waiting nor raising SIGPIPE"),
	ONE("recvfrom", POLICY_MASK0, 3,
	    ~(uint64_t)(MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT),
	    "a guest's data in, never waiting"),
	PLAT_NET_OPTS(OPT_RULES)
};

const unsigned policy_net_nrules =
    sizeof(policy_net_rules) / sizeof(policy_net_rules[0]);

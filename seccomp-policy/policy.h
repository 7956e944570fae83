/*
 * The vkernel's own host system-call allow-list, as data.
 *
 * After start-up the vkernel may make only these host calls; anything else
 * kills it (SECCOMP_RET_KILL_PROCESS).  Each entry says why it is needed
 * and, where the call is dangerous in general, which argument values are
 * allowed.
 */
#ifndef VK_SECCOMP_POLICY_H
#define VK_SECCOMP_POLICY_H

#include <stdint.h>

enum policy_op {
	POLICY_ANY,      /* no argument check */
	POLICY_EQ,       /* args[arg] == value */
	POLICY_MASK0,    /* (args[arg] & value) == 0 */
	POLICY_SELF,     /* args[arg] == the vkernel's pid at the lock-down */
};

/* args[arg] == value, besides the rule's own check. */
struct policy_eq {
	unsigned arg;
	uint64_t value;
};

struct policy_rule {
	const char *name;     /* the host syscall, as libseccomp names it */
	enum policy_op op;
	unsigned arg;
	uint64_t value;
	const char *why;
};

/* The rules; a call may appear in several rules (any one allows it). */
extern const struct policy_rule policy_rules[];
extern const unsigned policy_nrules;

/* The systrap platform's rules (--platform=systrap only). */
extern const struct policy_rule policy_systrap_rules[];
extern const unsigned policy_systrap_nrules;

/*
 * The host network's rules (--net=host only): the guest's Internet
 * sockets as host sockets, and nothing else of the host's network.
 */
struct policy_net_rule {
	struct policy_rule r;
	unsigned nalso;       /* also[0..nalso) must hold too */
	struct policy_eq also[2];
};
extern const struct policy_net_rule policy_net_rules[];
extern const unsigned policy_net_nrules;

#endif

/*
 * Lock-down: the seccomp filter the vkernel puts on itself once start-up
 * is done, built from the allow-list in seccomp-policy/.  From then on a
 * guest that took over the vkernel reaches only those host calls.  The
 * host network's calls are in it only with --net=host, the systrap
 * platform's only with --platform=systrap.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "host-linux/host.h"
#include "seccomp-policy/policy.h"

/* r, and with POLICY_EQ the nalso checks of also[] besides (at most 2). */
static int
rule_add(scmp_filter_ctx ctx, const struct policy_rule *r,
    const struct policy_eq *also, unsigned nalso, struct vk_error **err)
{
	int nr = seccomp_syscall_resolve_name(r->name);
	int e;

	if (nr == __NR_SCMP_ERROR)
		return vk_error_make(err, 0, "lock-down: unknown host "
		    "syscall '%s'", r->name);
	switch (r->op) {
	case POLICY_ANY:
		e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		break;
	case POLICY_EQ:
		e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1 + nalso,
		    SCMP_CMP64(r->arg, SCMP_CMP_EQ, r->value),
		    SCMP_CMP64(also[0].arg, SCMP_CMP_EQ, also[0].value),
		    SCMP_CMP64(also[1].arg, SCMP_CMP_EQ, also[1].value));
		break;
	case POLICY_SELF:
		e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
		    SCMP_CMP64(r->arg, SCMP_CMP_EQ, (uint64_t)getpid()));
		break;
	default:
		e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
		    SCMP_CMP64(r->arg, SCMP_CMP_MASKED_EQ, r->value, 0));
		break;
	}
	if (e < 0)
		return vk_error_make(err, -e, "lock-down: allow '%s'", r->name);
	return 0;
}

static const struct policy_eq no_more[2];

int
lockdown_install(bool net_host, bool systrap, struct vk_error **err)
{
	scmp_filter_ctx ctx;
	int e = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return vk_error_make(err, errno, "lock-down: set no_new_privs");
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (ctx == NULL)
		return vk_error_make(err, ENOMEM, "lock-down: make the filter");
	for (unsigned i = 0; i < policy_nrules && e == 0; i++)
		e = rule_add(ctx, &policy_rules[i], no_more, 0, err);
	for (unsigned i = 0; systrap && i < policy_systrap_nrules && e == 0; i++)
		e = rule_add(ctx, &policy_systrap_rules[i], no_more, 0, err);
	for (unsigned i = 0; net_host && i < policy_net_nrules && e == 0; i++) {
		const struct policy_net_rule *n = &policy_net_rules[i];

		e = rule_add(ctx, &n->r, n->also, n->nalso, err);
	}
	if (e == 0 && (e = seccomp_load(ctx)) < 0)
		e = vk_error_make(err, -e, "lock-down: load the filter");
	seccomp_release(ctx);
	return e;
}

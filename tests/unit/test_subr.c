/*
 * vk_log_guest: what a guest makes vkernel say is rate-limited, so that
 * no guest can flood stderr, and the lines held back are counted.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/unit/fake_platform.h"
#include "vkern/vk.h"

Test(subr, log_guest_burst_then_quiet)
{
	for (int i = 0; i < 100000; i++)
		vk_log_guest("guest line %d", i);
	cr_assert_eq(fake_nlog_writes, 10);
	cr_assert_str_eq(fake_log_first, "vkernel: guest line 0\n");
}

Test(subr, log_guest_tells_what_it_dropped)
{
	for (int i = 0; i < 25; i++)
		vk_log_guest("guest line %d", i);
	cr_assert_eq(fake_nlog_writes, 10);
	/* After the interval, a line gets through after the count. */
	fake_clock_skew_ns += 6 * 1000000000LL;
	fake_reset();
	vk_log_guest("later");
	cr_assert_eq(fake_nlog_writes, 2);
	cr_assert_str_eq(fake_log_first,
	    "vkernel: 15 guest-caused messages not shown\n");
}

Test(subr, log_plain_is_not_limited)
{
	for (int i = 0; i < 100; i++)
		vk_log("vkernel's own line %d", i);
	cr_assert_eq(fake_nlog_writes, 100);
}

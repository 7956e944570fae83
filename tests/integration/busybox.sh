#!/bin/sh
# Runs busybox applets natively and under "vkernel run --" and requires the
# same stdout and the same exit status; stderr is not compared, since the
# vkernel may log there (an unimplemented syscall, say).  Also checks that
# "run --strace" traces to stderr and "run --strace=FILE" to FILE.
#
# usage: busybox.sh [-b BUSYBOX] [VKERNEL] [CASE...]
#   VKERNEL defaults to $VKERNEL, BUSYBOX to $BUSYBOX or /bin/busybox, which
#   must be statically linked (Debian's busybox-static).  With no CASE every
#   case runs; "busybox.sh -l" lists them.
#
# Exits 0 if all cases pass, 1 if any fails (each failure explained on
# stderr), 77 (meson's "skipped") if there is no static busybox, 2 on a
# usage error.

set -u

prog=busybox.sh
busybox=${BUSYBOX:-/bin/busybox}
all_cases="echo true false seq sha256sum_pipe sha256sum_file wc_pipe printf
basename expr expr_false uname sleep md5sum tr sort sed awk cat head tail
uniq grep cut strace_stderr strace_file"

. "$(dirname "$0")/busybox_args.sh"

# 1 MiB of text that is the same on every run, and a small numbers file.
"$busybox" seq 1 200000 | head -c 1048576 >"$tmp/data"
"$busybox" seq 1 3000 >"$tmp/nums"
if [ "$(wc -c <"$tmp/data" | tr -d ' ')" != 1048576 ]; then
	echo "$prog: could not make the 1 MiB input" >&2
	exit 2
fi

failed=0
current=

fail()
{
	echo "FAIL: busybox $current: $*" >&2
	failed=1
}

# Prints the first lines of a file on stderr, for a failure report.
show()
{
	echo "--- $1 (first 10 lines) ---" >&2
	head -n 10 "$2" >&2
}

# run_both STDIN -- APPLET ARG...: runs the applet natively and in the
# vkernel with STDIN (a file, "pipe:FILE" to feed FILE through a pipe, or
# "-" for /dev/null), leaving stdout in $tmp/native.out and $tmp/vk.out and
# the statuses in $native_status and $vk_status.
run_both()
{
	input=$1
	shift 2
	case $input in
	-)
		"$busybox" "$@" </dev/null >"$tmp/native.out" \
		    2>"$tmp/native.err"
		native_status=$?
		"$vkernel" run -- "$busybox" "$@" </dev/null >"$tmp/vk.out" \
		    2>"$tmp/vk.err"
		vk_status=$?
		;;
	pipe:*)
		# The status of a pipeline is that of its last command.
		cat "${input#pipe:}" | "$busybox" "$@" >"$tmp/native.out" \
		    2>"$tmp/native.err"
		native_status=$?
		cat "${input#pipe:}" | "$vkernel" run -- "$busybox" "$@" \
		    >"$tmp/vk.out" 2>"$tmp/vk.err"
		vk_status=$?
		;;
	*)
		"$busybox" "$@" <"$input" >"$tmp/native.out" 2>"$tmp/native.err"
		native_status=$?
		"$vkernel" run -- "$busybox" "$@" <"$input" >"$tmp/vk.out" \
		    2>"$tmp/vk.err"
		vk_status=$?
		;;
	esac
}

# compare WANT_STATUS STDIN -- APPLET ARG...: the applet must exit
# WANT_STATUS natively (else the test itself is wrong), and the vkernel run
# must give the same status and byte-identical stdout.
compare()
{
	want=$1
	stdin_spec=$2
	shift 3
	run_both "$stdin_spec" -- "$@"
	if [ "$native_status" -ne "$want" ]; then
		fail "natively '$*' exits $native_status, not $want: the test" \
		    "is wrong for this busybox"
		show "native stderr" "$tmp/native.err"
		return
	fi
	if [ "$vk_status" -ne "$native_status" ]; then
		fail "exit status $vk_status under vkernel," \
		    "$native_status natively"
		show "vkernel stderr" "$tmp/vk.err"
	fi
	if ! cmp -s "$tmp/native.out" "$tmp/vk.out"; then
		fail "stdout differs from the native run of '$*'"
		show "native stdout" "$tmp/native.out"
		show "vkernel stdout" "$tmp/vk.out"
		show "vkernel stderr" "$tmp/vk.err"
	fi
}

case_echo()		{ compare 0 - -- echo hello; }
case_true()		{ compare 0 - -- true; }
case_false()		{ compare 1 - -- false; }
case_seq()		{ compare 0 - -- seq 1 1000; }
case_sha256sum_pipe()	{ compare 0 "pipe:$tmp/data" -- sha256sum; }
case_sha256sum_file()	{ compare 0 "$tmp/data" -- sha256sum; }
case_wc_pipe()		{ compare 0 "pipe:$tmp/data" -- wc -c; }
case_printf()
{
	compare 0 - -- printf '%s-%d:%x|%5.2f\n' abc 42 255 3.1
}
case_basename()		{ compare 0 - -- basename /usr/lib/libfoo.so.1 .1; }
case_expr()		{ compare 0 - -- expr 6 '*' 7; }
# expr exits 1 when the result is zero or empty.
case_expr_false()	{ compare 1 - -- expr 3 - 3; }
case_uname()		{ compare 0 - -- uname -sm; }
case_sleep()		{ compare 0 - -- sleep 0.05; }
case_md5sum()		{ compare 0 "pipe:$tmp/data" -- md5sum; }
case_tr()		{ compare 0 "pipe:$tmp/nums" -- tr 0-9 a-j; }
case_sort()		{ compare 0 "$tmp/nums" -- sort -r; }
case_sed()
{
	compare 0 "pipe:$tmp/nums" -- sed -n 's/^1\(.*\)7$/x\1/p'
}
case_awk()
{
	compare 0 "$tmp/nums" -- awk '{ s += $1 } END { print s }'
}
case_cat()		{ compare 0 "pipe:$tmp/data" -- cat; }
case_head()		{ compare 0 "pipe:$tmp/nums" -- head -n 5; }
case_tail()		{ compare 0 "$tmp/nums" -- tail -n 5; }
case_uniq()		{ compare 0 "pipe:$tmp/nums" -- uniq -c; }
case_grep()		{ compare 0 "pipe:$tmp/nums" -- grep -c 7; }
case_cut()		{ compare 0 "pipe:$tmp/nums" -- cut -c 2-3; }

# Tells whether some line of file $1 matches the extended regex $2.
has_line()
{
	grep -Eq -- "$2" "$1"
}

case_strace_stderr()
{
	"$vkernel" run --strace -- "$busybox" echo hi </dev/null \
	    >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq 0 ] || fail "run --strace: exit status $status"
	[ "$(cat "$tmp/out")" = hi ] || fail "run --strace: stdout is not 'hi'"
	has_line "$tmp/err" '^(\[pid +[0-9]+\] |[0-9]+ +)?write\(1, ' ||
	    fail "run --strace: no 'write(1, ' line on stderr"
	has_line "$tmp/err" '^(\[pid +[0-9]+\] |[0-9]+ +)?exit_group\(' ||
	    fail "run --strace: no 'exit_group(' line on stderr"
	[ "$failed" -eq 0 ] || show "stderr" "$tmp/err"
}

case_strace_file()
{
	rm -f "$tmp/trace"
	# The shell's exec shows the path it ran, read before the exec.
	"$vkernel" run --strace="$tmp/trace" -- "$busybox" sh -c \
	    "exec $busybox echo hi" </dev/null >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq 0 ] || fail "run --strace=FILE: exit status $status"
	[ "$(cat "$tmp/out")" = hi ] ||
	    fail "run --strace=FILE: stdout is not 'hi'"
	if [ ! -f "$tmp/trace" ]; then
		fail "run --strace=FILE: no file written"
		return
	fi
	has_line "$tmp/trace" '^(\[pid +[0-9]+\] |[0-9]+ +)?write\(1, ' ||
	    fail "run --strace=FILE: no 'write(1, ' line in the file"
	has_line "$tmp/trace" '^(\[pid +[0-9]+\] |[0-9]+ +)?exit_group\(' ||
	    fail "run --strace=FILE: no 'exit_group(' line in the file"
	grep -Fq "execve(\"$busybox\", " "$tmp/trace" ||
	    fail "run --strace=FILE: no 'execve(\"$busybox\", ' line"
	# The trace went to the file, so stderr must not carry it as well.
	! has_line "$tmp/err" 'write\(1, ' ||
	    fail "run --strace=FILE: trace lines on stderr too"
	if [ "$failed" -ne 0 ]; then
		show "trace file" "$tmp/trace"
		show "stderr" "$tmp/err"
	fi
}

[ $# -gt 0 ] || set -- $all_cases
for c in "$@"; do
	case " $(echo $all_cases) " in
	*" $c "*) ;;
	*) echo "$prog: no case '$c' (try -l)" >&2; exit 2 ;;
	esac
done
any_failed=0
for c in "$@"; do
	current=$c
	failed=0
	"case_$c"
	if [ "$failed" -eq 0 ]; then
		echo "ok: busybox $c"
	else
		any_failed=1
	fi
done
exit "$any_failed"

#!/bin/sh
# --crash-dir: a vkernel of a -Dcrash_test=true build fails on purpose
# (tests/guest/crash_trigger.c), under its lock-down, and must leave
# DIR/crash-<time>/ with the message, its backtrace and the guest threads'
# last calls, and exit 125.
# Usage: crash.sh VKERNEL GUEST CASE
#   assert     a failed VK_ASSERT
#   sanitizer  a heap read out of bounds (sanitizer builds only, else
#              skipped)
#   signal     a wild write: SIGSEGV in vkernel (in a sanitizer build the
#              sanitizer reports it)
#   hostuser   assert, with vkernel run as host uid 65534
#   nodir      assert without --crash-dir: vkernel dies of SIGABRT as
#              before, and writes nothing
#   forkfail   GUEST is crash_forkfail, under --mem 16M: forks that fail
#              half-way give back every byte (the threads' call rings
#              too), so vkernel's own check at exit finds nothing owed
#              and there is no report (any build)
vk=$1
guest=$2
case=$3
fail() { echo "FAIL: $case: $*" >&2; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
dir=$tmp/reports
sanitized=no
"$vk" policy | grep -q 'sanitizer runtime' && sanitized=yes

mode=1
asuser=
want='assertion failed: raw\[0\] != 1'
case $case in
assert) ;;
sanitizer)
	[ $sanitized = yes ] || { echo "skip: not a sanitizer build"; exit 77; }
	mode=2
	want='sanitizer error' ;;
signal)
	mode=3
	want='fatal signal SIGSEGV at address 0x10'
	[ $sanitized = yes ] && want='sanitizer error' ;;
hostuser)
	command -v setpriv >/dev/null || { echo "skip: no setpriv"; exit 77; }
	[ "$(id -u)" = 0 ] || { echo "skip: not root"; exit 77; }
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$vk" ||
		{ echo "skip: uid 65534 cannot reach the build"; exit 77; }
	mkdir "$dir" && chown 65534:65534 "$dir"
	asuser="setpriv --reuid=65534 --regid=65534 --clear-groups" ;;
forkfail|forkfail_hostuser)
	[ $case = forkfail_hostuser ] && [ "$(id -u)" = 0 ] &&
		asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
	mkdir "$dir" && chmod 777 "$dir"
	$asuser "$vk" run --mem 16M --crash-dir "$dir" -- "$guest" \
	    >/dev/null 2>"$tmp/err"
	st=$?
	grep -q 'not returned' "$tmp/err" && fail "$(cat "$tmp/err")"
	[ $st -ne 125 ] || fail "vkernel crashed: $(cat "$tmp/err")"
	[ -z "$(ls "$dir")" ] || fail "a report was written"
	echo "ok: $case"
	exit 0 ;;
nodir)
	"$vk" run -- "$guest" 1 >/dev/null 2>"$tmp/err"
	st=$?
	[ $st -eq 77 ] && { echo "skip: no crash-test call"; exit 77; }
	[ $st -eq 134 ] || fail "want exit 134 (SIGABRT), got $st"
	ls "$tmp" | grep -q crash- && fail "a report was written"
	echo "ok: $case"
	exit 0 ;;
*) fail "unknown case" ;;
esac

$asuser "$vk" run --crash-dir "$dir" -- "$guest" $mode >"$tmp/out" \
    2>"$tmp/err"
st=$?
[ $st -eq 77 ] && { echo "skip: not a -Dcrash_test=true build"; exit 77; }
[ $st -eq 125 ] || { cat "$tmp/err" >&2; fail "want exit 125, got $st"; }
grep -q 'crash-test marker' "$tmp/out" || fail "the guest did not run"
n=$(ls "$dir" | wc -l)
[ "$n" -eq 1 ] || fail "want one report in $dir, found $n"
r=$(echo "$dir"/crash-*)
grep -q "crash report in $r\$" "$tmp/err" || fail "stderr does not name $r"
[ -n "$asuser" ] && [ "$(stat -c %u "$r/message")" != 65534 ] &&
	fail "the report is not uid 65534's"

# The message: what failed, and the command line.
grep -Eq "$want" "$r/message" || fail "message: want '$want'"
grep -q -- "-- $guest $mode\$" "$r/message" || fail "message: no command line"
# The backtrace is vkernel's, several frames deep.
[ "$(grep -c 'vkernel(' "$r/backtrace")" -ge 3 ] ||
	fail "backtrace: fewer than 3 vkernel frames"

# The calls: the main thread's last 256 (the command is pid 2, under
# vkernel's init, which makes none), ending in the one that failed and
# never returned; the reader thread's read, still blocked.
main=$r/strace.2
[ -f "$main" ] || fail "no strace.2"
[ "$(wc -l <"$main")" -eq 256 ] || fail "strace.2: want 256 lines"
head -n 1 "$main" | grep -q '^\[pid 2\] getppid() = ' ||
	fail "strace.2: does not start with getppid"
grep -Eq '^\[pid 2\] write\(1, 0x[0-9a-f]+, 18\) = 18$' "$main" ||
	fail "strace.2: no marker write"
tail -n 1 "$main" | grep -Eq "^\\[pid 2\\] syscall_30307\\($(printf %#x $mode), .*\\) = \\?\$" ||
	fail "strace.2: does not end with the failed call"
other=$(ls "$r" | grep -v -e '^strace\.2$' -e '^message$' -e '^backtrace$')
[ "$(echo "$other" | wc -w)" -eq 1 ] || fail "want one other thread: $other"
tail -n 1 "$r/$other" | grep -Eq '^\[pid [0-9]+\] read\(3, 0x[0-9a-f]+, 1\) = \?$' ||
	fail "$other: does not end with the blocked read"
echo "ok: $case"

#!/bin/bash
# A host SIGUSR1 to vkernel asks for a report of the guest's threads, and
# is not passed on: the guest (a shell that traps USR1, waiting on a cat
# that reads a pipe) goes on and ends as it would have.
# Usage: report.sh VKERNEL CASE
#   dir       --crash-dir DIR: DIR/state-<time>/tasks names cat, parked,
#             and its strace.TID shows the read it waits in
#   stderr    no --crash-dir: the tasks go to vkernel's stderr
#   hostuser  dir, with vkernel run as host uid 65534
set -u
vk=$1
case_=$2
fail() { echo "FAIL: $case_: $*" >&2; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir "$tmp/dir"
asuser=
opt=(--crash-dir "$tmp/dir")
case $case_ in
dir) ;;
stderr) opt=() ;;
hostuser)
	[ "$(id -u)" = 0 ] || { echo "skip: not root"; exit 77; }
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$vk" ||
		{ echo "skip: uid 65534 cannot reach the build"; exit 77; }
	chown 65534:65534 "$tmp/dir"
	asuser="setpriv --reuid=65534 --regid=65534 --clear-groups" ;;
*) fail "unknown case" ;;
esac

mkfifo "$tmp/in"
chmod 666 "$tmp/in"
$asuser "$vk" run "${opt[@]}" -- /bin/sh -c \
    'trap "echo got USR1" USR1; echo ready; cat; echo "cat said $?"' \
    <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 3>"$tmp/in"
for _ in $(seq 100); do
	grep -qx ready "$tmp/out" && break
	sleep 0.1
done
sleep 0.5    # cat is in its read
kill -USR1 "$pid"
for _ in $(seq 100); do
	grep -q 'state report in\|guest threads' "$tmp/err" && break
	sleep 0.1
done
echo bye >&3
exec 3>&-
wait "$pid"
st=$?
[ $st -eq 0 ] || fail "vkernel exited $st: $(cat "$tmp/err")"
grep -q 'got USR1' "$tmp/out" && fail "the guest got SIGUSR1"
grep -qx 'bye' "$tmp/out" && grep -qx 'cat said 0' "$tmp/out" ||
    fail "the guest did not go on: $(cat "$tmp/out")"

if [ "$case_" = stderr ]; then
	tasks=$tmp/err
	[ -z "$(ls "$tmp/dir")" ] || fail "a report directory was made"
else
	grep -q "state report in $tmp/dir/state-" "$tmp/err" ||
		fail "vkernel did not say where: $(cat "$tmp/err")"
	d=$(ls -d "$tmp"/dir/state-*) || fail "no state-<time> directory"
	tasks=$d/tasks
fi
line=$(grep ' comm "cat" ' "$tmp/err" "$tasks" 2>/dev/null | head -n 1)
[ -n "$line" ] || fail "cat is not in the report: $(cat "$tasks")"
echo "$line" | grep -q ' parked wait +0x[0-9a-f]* ' ||
	fail "cat is not shown waiting: $line"
grep -q '"sh" parked' "$tasks" || fail "the shell is not in the report"
grep -q 'vkernel-init' "$tasks" || fail "init is not in the report"
if [ "$case_" != stderr ]; then
	tid=$(echo "$line" | sed 's/.* tid \([0-9]*\) .*/\1/')
	tail -n 1 "$d/strace.$tid" | grep -q '^\[pid [0-9]*\] read(0, .* = ?$' ||
		fail "cat's last call is not its read: $(cat "$d/strace.$tid")"
fi
echo "ok: $case_"

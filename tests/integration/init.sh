#!/bin/bash
# vkernel's init: the command runs as pid 2 under it, and as pid 1 with
# --as-pid-1.  Usage: init.sh VKERNEL CASE
#
#   pid            the command is pid 2, child of pid 1 (vkernel-init)
#   as_pid_1       with --as-pid-1 it is pid 1 itself, with no parent
#   orphan         a process whose parent exited finds pid 1 its parent
#   kill9          SIGKILL, SIGSTOP and SIGTERM sent to pid 1 from inside
#                  are ignored: it stays, sleeping, and the command goes on
#   kill9_as_pid_1 the same for a command that is pid 1 and has no handler
#   exit_status    the command's exit status is vkernel's
#   signal_status  a command killed by a signal: 128+N, as a shell says
#   term, hup      the host's SIGTERM, SIGHUP to vkernel reach the command,
#                  whose trap runs and whose status is vkernel's
#   int            the host's SIGINT reaches the command (no terminal)
#   stats          --stats still prints its table, the status unchanged
#
# Exits 0 if the case passes, 1 if it fails (explained on stderr).
set -u
vk=$1
case_=$2
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

fail() {
	echo "FAIL: $case_: $*" >&2
	echo "--- stdout:" >&2
	cat "$out" >&2
	echo "--- stderr:" >&2
	cat "$err" >&2
	exit 1
}

# Run a shell command inside, output in $out and $err, status in $st.
guest() {
	local opts=()

	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	"$vk" run "${opts[@]}" -- /bin/sh -c "$1" >"$out" 2>"$err"
	st=$?
}

# Start a bash script inside, wait until it says "ready", send the host
# signal $2 to vkernel, collect the status in $st.
hostsig() {
	"$vk" run -- bash -c "$1" >"$out" 2>"$err" &
	local pid=$!

	for _ in $(seq 100); do
		grep -qx ready "$out" && break
		sleep 0.1
	done
	kill -"$2" "$pid"
	wait "$pid"
	st=$?
}

case $case_ in
pid)
	guest -- 'echo $$ $PPID; cat /proc/1/comm'
	[ "$st" = 0 ] && [ "$(cat "$out")" = "2 1
vkernel-init" ] || fail "status $st"
	;;
as_pid_1)
	guest --as-pid-1 -- 'echo $$ $PPID'
	[ "$st" = 0 ] && [ "$(cat "$out")" = "1 0" ] || fail "status $st"
	;;
orphan)
	guest -- '(sh -c "sleep 0.3; exec grep PPid /proc/self/status" &); sleep 1'
	[ "$st" = 0 ] && grep -qx "PPid:	1" "$out" || fail "status $st"
	;;
kill9)
	guest -- 'for s in KILL STOP TERM INT HUP SEGV; do kill -$s 1 ||
	    echo refused; done; sleep 0.2; grep State /proc/1/status; echo alive'
	[ "$st" = 0 ] && [ "$(cat "$out")" = "State:	S (sleeping)
alive" ] || fail "status $st"
	;;
kill9_as_pid_1)
	guest --as-pid-1 -- 'sh -c "kill -KILL 1; kill -STOP 1; kill -TERM 1";
	    echo alive'
	[ "$st" = 0 ] && [ "$(cat "$out")" = alive ] || fail "status $st"
	;;
exit_status)
	guest -- 'exit 42'
	[ "$st" = 42 ] || fail "status $st"
	;;
signal_status)
	guest -- 'kill -SEGV $$'
	[ "$st" = 139 ] && grep -q "SIGSEGV" "$err" || fail "status $st"
	;;
term | hup | int)
	# Each with its own status, to tell which trap ran.
	sig=$(echo "$case_" | tr a-z A-Z)
	code=$(( $(kill -l "$sig") + 100 ))
	hostsig "trap 'echo got $sig in \$\$; exit $code' $sig; echo ready;
	    sleep 5 & wait" "$sig"
	[ "$st" = "$code" ] && grep -qx "got $sig in 2" "$out" ||
		fail "status $st"
	;;
stats)
	guest --stats -- 'exit 5'
	[ "$st" = 5 ] && grep -q '^total ' "$err" || fail "status $st"
	;;
*)
	echo "unknown case $case_" >&2
	exit 2 ;;
esac
echo "ok: $case_"

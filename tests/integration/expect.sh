#!/bin/sh
# Runs one command and checks its exit status and output, for tests whose
# pass condition is not simply "exit 0": a guest that must die of SIGSEGV,
# exit with a given status or print a given line.
#
# usage: expect.sh [options] -- command [arg...]
#   --status N           the exit status must be N (default 0); a command
#                        killed by signal S counts as 128 + S, as in the shell
#   --stdout TEXT        stdout must be exactly TEXT and one newline
#   --stdout-match ERE   some line of stdout must match ERE
#   --stderr-match ERE   some line of stderr must match ERE (case-insensitive)
#   --stderr-lines N     stderr must have exactly N lines
#   --stdin FILE         feed FILE as stdin (default: inherited)
#
# Exits 0 if every check holds, else 1 with one "expect.sh: ..." line per
# failed check followed by the captured output; 77 when the command
# skipped (status 77 where 0 is wanted); 2 on a usage error.

set -u

prog=expect.sh
want_status=0
want_stdout=
have_stdout=no
stdout_match=
stderr_match=
stderr_lines=
stdin_file=

usage()
{
	echo "$prog: $1" >&2
	echo "usage: $prog [--status N] [--stdout TEXT] [--stdout-match ERE]" \
	    "[--stderr-match ERE] [--stderr-lines N] [--stdin FILE]" \
	    "-- cmd..." >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	--status|--stdout|--stdout-match|--stderr-match|--stderr-lines|--stdin)
		[ $# -ge 2 ] || usage "$1 needs a value" ;;
	*) usage "unknown option $1" ;;
	esac
	case $1 in
	--status) want_status=$2 ;;
	--stdout) want_stdout=$2; have_stdout=yes ;;
	--stdout-match) stdout_match=$2 ;;
	--stderr-match) stderr_match=$2 ;;
	--stderr-lines) stderr_lines=$2 ;;
	--stdin) stdin_file=$2 ;;
	esac
	shift 2
done
[ $# -gt 0 ] || usage "no command given"
case $want_status in
''|*[!0-9]*) usage "--status wants a number, not '$want_status'" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/expect.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# The subshell execs the command, so that a shell's own "Segmentation
# fault" report about it goes to our stderr, never into the captured one.
if [ -n "$stdin_file" ]; then
	(exec "$@") <"$stdin_file" >"$tmp/out" 2>"$tmp/err"
else
	(exec "$@") >"$tmp/out" 2>"$tmp/err"
fi
status=$?

# A command whose pass is status 0 skips with 77, as meson counts it: a
# guest program's checks that only root can make, run by an ordinary user.
if [ "$status" -eq 77 ] && [ "$want_status" -eq 0 ]; then
	head -n 40 "$tmp/out"
	head -n 40 "$tmp/err" >&2
	exit 77
fi

failed=0
fail()
{
	echo "$prog: $*" >&2
	failed=1
}

[ "$status" -eq "$want_status" ] ||
    fail "exit status $status, want $want_status"
if [ "$have_stdout" = yes ]; then
	printf '%s\n' "$want_stdout" >"$tmp/want"
	cmp -s "$tmp/want" "$tmp/out" ||
	    fail "stdout is not exactly '$want_stdout'"
fi
if [ -n "$stdout_match" ]; then
	grep -Eq -- "$stdout_match" "$tmp/out" ||
	    fail "no stdout line matches /$stdout_match/"
fi
if [ -n "$stderr_match" ]; then
	grep -Eiq -- "$stderr_match" "$tmp/err" ||
	    fail "no stderr line matches /$stderr_match/ (ignoring case)"
fi
if [ -n "$stderr_lines" ]; then
	n=$(wc -l <"$tmp/err" | tr -d ' ')
	# A last line without a newline still counts as a line.
	# ($(...) drops a trailing newline, so only a bare last line is seen.)
	if [ -n "$(tail -c 1 "$tmp/err")" ]; then
		n=$((n + 1))
	fi
	[ "$n" -eq "$stderr_lines" ] ||
	    fail "stderr has $n lines, want $stderr_lines"
fi

if [ "$failed" -ne 0 ]; then
	echo "$prog: command: $*" >&2
	echo "--- stdout (first 40 lines) ---" >&2
	head -n 40 "$tmp/out" >&2
	echo "--- stderr (first 40 lines) ---" >&2
	head -n 40 "$tmp/err" >&2
	exit 1
fi
# Pass the output on, so that the test log shows what the command said.
head -n 40 "$tmp/out"
head -n 40 "$tmp/err" >&2
exit 0

#!/bin/sh
# Checks /dev/stdin, /dev/stderr, /dev/fd/N and /proc/PID/fd/N from the
# shell, against the same commands run natively: cat of /dev/stdin from a
# pipe, a redirection to /dev/stderr, bash's process substitution with
# diff and a while-read loop, readlink of a shell's fds, a program run
# with the host's fd 0 closed or /dev/null; and --preserve-fds with a
# host file and a host pipe.  Each case runs as the guest's first user
# and again as uid 65534 inside (dropped by python3, natively too), so
# that the files' permissions decide as on Linux (a pipe the host's
# user made is not another user's to open again).
#
# usage: fdlink.sh VKERNEL CASE
#   CASE: stdin_pipe stderr procsub readlink exec_stdin stdin_closed
#   preserve_file preserve_pipe preserve_closed.  Exits 0 on a pass, 1 on a failure.

set -u

vkernel=$1
case_=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vk-fdlink.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
failed=0

fail()
{
	echo "FAIL: fdlink $case_: $*" >&2
	failed=1
}

# The drop to uid 65534 the second pass runs its command through (a
# user already is one).
py=/usr/bin/python3
[ -x $py ] || py=python3
drop='import os, sys
if os.geteuid() == 0:
    os.setgroups([]); os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)
os.execvp(sys.argv[1], sys.argv[1:])'

# Inode numbers, pids and the two runs' output files differ.
normalize()
{
	sed -E -e 's/(pipe|socket):\[[0-9]+\]/\1:[N]/g' \
	    -e 's|/proc/[0-9]+/|/proc/PID/|g' -e "s|$tmp/[nv]\\.|OUT.|g" "$1"
}

# run WHERE CMD...: CMD natively (WHERE n) or inside vkernel (v), its
# stdin as $feed says (a pipe with that text, "null", "closed", or the
# file at an absolute path),
# stdout and stderr to $tmp/WHERE.out and .err, status in $tmp/WHERE.st.
run()
{
	where=$1
	shift
	[ "$where" = v ] && set -- "$vkernel" run -- "$@"
	case $feed in
	null) "$@" </dev/null ;;
	closed) "$@" <&- ;;
	/*) "$@" <"$feed" ;;
	*) printf '%s\n' "$feed" | "$@" ;;
	esac >"$tmp/$where.out" 2>"$tmp/$where.err"
	echo $? >"$tmp/$where.st"
	cat "$tmp/$where.st" >>"$tmp/$where.out"
	cat "$tmp/$where.err" >>"$tmp/$where.out"
}

# same WHO CMD...: CMD natively and inside vkernel gives the same output
# on stdout and stderr and the same status; WHO is root or user (uid
# 65534).
same()
{
	who=$1
	shift
	if [ "$who" = user ]; then
		set -- $py -c "$drop" "$@"
	fi
	run n "$@"
	run v "$@"
	normalize "$tmp/n.out" >"$tmp/n.norm"
	normalize "$tmp/v.out" >"$tmp/v.norm"
	if ! cmp -s "$tmp/n.norm" "$tmp/v.norm"; then
		fail "$who: '$*'"
		diff "$tmp/n.norm" "$tmp/v.norm" >&2
	fi
}

for who in root user; do
	feed=null
	case $case_ in
	stdin_pipe)
		feed=piped
		same $who cat /dev/stdin
		same $who sh -c 'read -r l </dev/fd/0; echo "read $l"'
		;;
	stderr)
		same $who sh -c 'echo to-err >/dev/stderr; echo to-out \
		    >/dev/stdout; echo more'
		# O_TRUNC truncates the host file; the new file's offset
		# is its own.
		same $who sh -c 'echo first; sh -c "echo b >/dev/stdout";
		    echo c'
		;;
	procsub)
		same $who bash -c 'diff <(printf "a\nb\n") <(printf "a\nc\n");
		    echo "diff: $?"; while read -r l; do echo "got $l"; done \
		    < <(printf "1\n2\n"); cat <(echo sub) /dev/fd/3 3< \
		    <(echo three)'
		;;
	readlink)
		feed=in
		same $who sh -c 'exec 3</etc/hostname 4<>/dev/null 5<"$0";
		    for f in /proc/$$/fd/[0-5]; do echo "$f $(readlink $f)";
		    done; readlink /dev/stdin /dev/fd' "$tmp"
		;;
	exec_stdin)
		# A host file's bytes run through /dev/stdin.
		feed=/bin/true
		same $who bash -c '/dev/stdin; echo "status $?"'
		;;
	stdin_closed)
		feed=closed
		same $who sh -c 'readlink /proc/$$/fd/0 || echo closed;
		    cat; echo "cat: $?"'
		feed=null
		same $who sh -c 'readlink /proc/$$/fd/0; cat /dev/stdin;
		    echo "cat: $?"'
		;;
	esac
done

# --preserve-fds N: host fds 3 to 2+N are the guest's, read, written,
# polled and seeked as the host allows; without it the guest has none.
printf 'abcdef' >"$tmp/in"
case $case_ in
preserve_file)
	out=$("$vkernel" run --preserve-fds 2 -- sh -c 'head -c 2 <&3;
	    dd bs=1 skip=1 count=2 <&3 2>/dev/null; echo; echo written >&4;
	    readlink /proc/self/fd/3; stat -L -c %s /proc/self/fd/3' \
	    3<"$tmp/in" 4>"$tmp/out" </dev/null)
	want=$(printf 'abde\n%s\n6' "$tmp/in")
	[ "$out" = "$want" ] || fail "preserved file: '$out', want '$want'"
	[ "$(cat "$tmp/out")" = written ] || fail "preserved fd 4 not written"
	out=$("$vkernel" run -- sh -c 'cat <&3' 3<"$tmp/in" </dev/null 2>&1)
	[ $? -ne 0 ] || fail "fd 3 passed in without --preserve-fds: '$out'"
	;;
preserve_pipe)
	out=$(printf 'through a pipe' | "$vkernel" run --preserve-fds 1 -- \
	    $py -c 'import os, select
select.select([3], [], [])
print(os.read(3, 100).decode(), os.readlink("/proc/self/fd/3")[:6])
try: os.lseek(3, 0, 0)
except OSError as e: print(e.strerror)' 3<&0 </dev/null)
	want=$(printf 'through a pipe pipe:[\nIllegal seek')
	[ "$out" = "$want" ] || fail "preserved pipe: '$out', want '$want'"
	;;
preserve_closed)
	"$vkernel" run --preserve-fds 2 -- true 3</dev/null 4<&- \
	    2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] || fail "a closed fd to preserve: status $st, want 2"
	grep -q "preserve-fds.*not open" "$tmp/err" ||
	    fail "no word of it on stderr"
	;;
esac
exit $failed

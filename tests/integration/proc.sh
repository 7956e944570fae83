#!/bin/bash
# Real programs with processes inside vkernel against native runs: shell
# pipelines, subshells, command substitution, background jobs and wait,
# traps, find | xargs, tar with gzip, perl, gcc compiling, linking and
# running a program, and glibc's posix_spawn (a CLONE_VM child).  Usage:
# proc.sh VKERNEL CASE
set -u
vk=$1
case_=$2
work=$(mktemp -d /tmp/vk-proc.XXXXXX)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/compare.sh"

# A bash script natively and inside vkernel.
same_script() {
	same bash -c "$1"
}

case $case_ in
pipeline)
	same_script 'for f in /etc/*.conf; do wc -l "$f"; done | sort -n | tail -3' ;;
subshell)
	same_script 'x=$(echo a; (echo b; exit 3); echo "st=$?"); echo "$x"; (cd /etc && pwd); echo $((6 * 7))' ;;
jobs)
	same_script 'sleep 0.2 & a=$!; (echo child; exit 4) & b=$!; wait $b; echo "b=$?"; wait $a; echo "a=$?"' ;;
trap)
	same_script 'trap "echo caught USR1" USR1; kill -USR1 $$; trap "echo bye" EXIT; echo body' ;;
exit_status)
	same_script 'sh -c "exit 7"; echo $?; sh -c "kill -TERM \$\$"; echo $?' ;;
find_xargs)
	same_script 'find /etc -maxdepth 1 -name "*.conf" | sort | xargs -n 4 echo | head -5' ;;
tar_gzip)
	same_script 'cd /tmp && rm -rf tz && mkdir -p tz/a/b && echo hi > tz/a/b/f && seq 1 2000 > tz/n && tar -czf tz.tgz tz && rm -rf tz && tar -xzf tz.tgz && cat tz/a/b/f && sha256sum tz/n | cut -c1-16 && rm -rf tz tz.tgz' ;;
perl)
	command -v perl >/dev/null || { echo "no perl"; exit 77; }
	same_script 'perl -e "print join(q(,), map { \$_ * \$_ } 1..10), qq(\n)"' ;;
coreutils)
	same_script 'seq 1 100 | paste -sd+ | bc 2>/dev/null || seq 1 100 | awk "{s+=\$1} END {print s}"; printf "b\na\nc\n" | sort | tr a-z A-Z; echo hello | sed s/l/L/g; grep -c root /etc/passwd' ;;
gcc)
	command -v gcc >/dev/null || { echo "no gcc"; exit 77; }
	cat > "$work/hello.c" <<'C'
#include <stdio.h>
int main(void) { printf("hello from a program built in the sandbox\n"); return 3; }
C
	out=$("$vk" run -- bash -c "gcc -O1 $work/hello.c -o /tmp/hello && /tmp/hello" 2>/dev/null)
	st=$?
	if [ "$st" != 3 ] || [ "$out" != "hello from a program built in the sandbox" ]; then
		echo "FAIL: gcc: status $st, output '$out'" >&2
		exit 1
	fi
	# The binary was written in the sandbox's memory, not on the host.
	if [ -e /tmp/hello ] && [ /tmp/hello -nt "$work/hello.c" ]; then
		echo "FAIL: gcc: the sandbox wrote /tmp/hello on the host" >&2
		exit 1
	fi
	echo "ok: gcc" ;;
posix_spawn)
	command -v gcc >/dev/null || { echo "no gcc"; exit 77; }
	# The child reports a failed exec through the parent's memory.
	cat > "$work/spawn.c" <<'C'
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
extern char **environ;
int main(void) {
	char *missing[] = { "x", NULL }, *sh[] = { "sh", "-c", "exit 5", NULL };
	pid_t pid;
	int st = -1;
	printf("missing: %d\n", posix_spawn(&pid, "/nonexistent/x", NULL, NULL, missing, environ));
	printf("sh: %d", posix_spawn(&pid, "/bin/sh", NULL, NULL, sh, environ));
	printf(" status %d\n", waitpid(pid, &st, 0) == pid ? st : -1);
	return 0;
}
C
	gcc -O1 "$work/spawn.c" -o "$work/spawn" || exit 1
	same_script "$work/spawn" ;;
cpuinfo)
	# /proc/cpuinfo inside against the host's: the same CPU identity,
	# and flags that the host shows too, in the host's order; with
	# vkernel run by root and by an unprivileged host user.
	grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2 | tr ' ' '\n' |
	    grep . > "$work/host" || { echo "no host flags"; exit 77; }
	grep -m4 -E '^(vendor_id|cpu family|model|model name)[[:space:]]' \
	    /proc/cpuinfo > "$work/host_id"
	chmod 755 "$work"
	for as in "" "$(dirname "$0")/asuser.sh"; do
		$as "$vk" run -- /bin/cat /proc/cpuinfo > "$work/in" 2>/dev/null
		grep -m1 '^flags' "$work/in" | cut -d: -f2 | tr ' ' '\n' |
		    grep . > "$work/in_flags"
		grep -m4 -E '^(vendor_id|cpu family|model|model name)[[:space:]]' \
		    "$work/in" > "$work/in_id"
		extra=$(grep -vxFf "$work/host" "$work/in_flags" | tr '\n' ' ')
		if [ -n "$extra" ] || ! grep -qx sse2 "$work/in_flags"; then
			echo "FAIL: cpuinfo${as:+ as user}: flags not the host's: '$extra'" >&2
			exit 1
		fi
		if ! grep -xFf "$work/in_flags" "$work/host" |
		    cmp -s - "$work/in_flags"; then
			echo "FAIL: cpuinfo${as:+ as user}: flags not in Linux's order" >&2
			exit 1
		fi
		if ! cmp -s "$work/host_id" "$work/in_id"; then
			echo "FAIL: cpuinfo${as:+ as user}: identity differs:" >&2
			diff "$work/host_id" "$work/in_id" >&2
			exit 1
		fi
	done
	echo "ok: cpuinfo: $(wc -l < "$work/in_flags") of the host's $(wc -l < "$work/host") flags" ;;
*)
	echo "unknown case $case_" >&2
	exit 2 ;;
esac

#!/bin/sh
# Checks the vkernel command line and its refusals: --help and --version
# succeed, an unknown option is a usage error (status 2), and a program that
# cannot be run (missing, not ELF, truncated, for another machine, not
# executable) gives a non-zero status and exactly one line on stderr that
# says why.  Wording is matched loosely and without regard to case; the
# one-line rule is strict, since that line is all a user gets.
#
# usage: cli.sh [VKERNEL] [CASE...]
#   VKERNEL defaults to $VKERNEL.  With no CASE every case runs; "cli.sh -l"
#   lists them.  Exits 0 if all pass, 1 if any fails, 2 on a usage error.

set -u

prog=cli.sh
all_cases="help version unknown_option nonexistent not_elf truncated_elf
wrong_machine no_exec_permission cpus log platform platform_patch
stats_faults"

if [ "${1:-}" = -l ]; then
	echo $all_cases
	exit 0
fi
vkernel=${1:-${VKERNEL:-}}
[ $# -gt 0 ] && shift
if [ -z "$vkernel" ] || [ ! -x "$vkernel" ]; then
	echo "$prog: no executable vkernel given (argument or \$VKERNEL)" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vk-cli.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

failed=0
current=

fail()
{
	echo "FAIL: cli $current: $*" >&2
	failed=1
}

# run ARG...: runs the vkernel with stdin /dev/null, leaving stdout and
# stderr in $tmp/out and $tmp/err and the exit status in $status.
run()
{
	"$vkernel" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	status=$?
}

# Prints the number of lines in $1, a last line without newline included.
count_lines()
{
	n=$(wc -l <"$1" | tr -d ' ')
	[ -z "$(tail -c 1 "$1")" ] || n=$((n + 1))
	echo "$n"
}

# refused WANT_STATUS ERE ARG...: the vkernel run with ARG... must exit with
# WANT_STATUS ("error" means 1-127: a failure, but not a death by signal,
# which the shell reports as 128 + N) and print exactly one stderr line,
# matching ERE (case-insensitive).
refused()
{
	want=$1
	ere=$2
	shift 2
	run "$@"
	if [ "$want" = error ]; then
		if [ "$status" -eq 0 ] || [ "$status" -ge 128 ]; then
			fail "'vkernel $*' exits $status, want a failure" \
			    "status below 128"
		fi
	elif [ "$status" -ne "$want" ]; then
		fail "'vkernel $*' exits $status, want $want"
	fi
	lines=$(count_lines "$tmp/err")
	# Match the words around the file or option named, not the name
	# itself: a random temp path might spell "elf", an option "option".
	sed -e "s|$tmp/[A-Za-z0-9_.-]*||g" -e 's/--no-such-option//g' \
	    "$tmp/err" >"$tmp/msg"
	if [ "$lines" -ne 1 ]; then
		fail "'vkernel $*' prints $lines lines on stderr," \
		    "want exactly 1"
	elif ! grep -Eiq -- "$ere" "$tmp/msg"; then
		fail "'vkernel $*' says '$(cat "$tmp/err")', which does not" \
		    "match /$ere/"
	fi
	if [ "$failed" -ne 0 ]; then
		echo "--- stderr ---" >&2
		head -n 10 "$tmp/err" >&2
	fi
}

case_help()
{
	run --help
	[ "$status" -eq 0 ] || fail "--help exits $status"
	grep -iq 'usage' "$tmp/out" || fail "--help prints no 'usage' on stdout"
	grep -q 'run' "$tmp/out" || fail "--help does not mention 'run'"
}

case_version()
{
	run --version
	[ "$status" -eq 0 ] || fail "--version exits $status"
	grep -Eq '[0-9]+\.[0-9]+' "$tmp/out" ||
	    fail "--version prints no version number on stdout"
}

bad_option_ere='unknown|unrecognized|invalid|usage|not an option|bad option'
bad_option_ere="$bad_option_ere|illegal"

case_unknown_option()
{
	refused 2 "$bad_option_ere" --no-such-option
	refused 2 "$bad_option_ere" run --no-such-option -- /bin/true
}

case_nonexistent()
{
	refused 127 'no such file' run -- "$tmp/nonexistent"
}

case_not_elf()
{
	# Text without "#!": execve(2) gives ENOEXEC, "Exec format error".
	printf 'echo this is not a program\n' >"$tmp/script"
	chmod 755 "$tmp/script"
	refused error 'elf|exec format|format' run -- "$tmp/script"
	# An empty executable file is no ELF file either.
	: >"$tmp/empty"
	chmod 755 "$tmp/empty"
	refused error 'elf|exec format|format|empty|truncated|short' \
	    run -- "$tmp/empty"
}

case_truncated_elf()
{
	elf=${BUSYBOX:-/bin/busybox}
	[ -f "$elf" ] || elf=$vkernel
	# The ELF header is whole; the program headers it points to are not.
	head -c 100 "$elf" >"$tmp/truncated"
	chmod 755 "$tmp/truncated"
	refused error '.' run -- "$tmp/truncated"
}

# Writes a 64-byte ELF64 little-endian executable header for machine $1 (a
# byte, in octal) to $2, with no program headers.
elf_header()
{
	{
		# e_ident: magic, ELFCLASS64, ELFDATA2LSB, EV_CURRENT, SysV.
		printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000'
		# e_type ET_EXEC, e_machine, e_version 1.
		printf "\\002\\000\\$1\\000\\001\\000\\000\\000"
		# e_entry 0x400000, e_phoff 64, e_shoff 0.
		printf '\000\000\100\000\000\000\000\000'
		printf '\100\000\000\000\000\000\000\000'
		printf '\000\000\000\000\000\000\000\000'
		# e_flags, e_ehsize 64, e_phentsize 56, e_phnum 0,
		# e_shentsize 64, e_shnum 0, e_shstrndx 0.
		printf '\000\000\000\000\100\000\070\000'
		printf '\000\000\100\000\000\000\000\000'
	} >"$2"
}

case_wrong_machine()
{
	# EM_AARCH64 is 183, octal 267.
	elf_header 267 "$tmp/aarch64"
	chmod 755 "$tmp/aarch64"
	if [ "$(wc -c <"$tmp/aarch64" | tr -d ' ')" != 64 ]; then
		fail "could not write the 64-byte header"
		return
	fi
	refused error 'machine|architecture|arch|aarch64' run -- "$tmp/aarch64"
}

case_no_exec_permission()
{
	# A real program, so that only the permission is wrong.  Even root
	# cannot execve(2) a file with no execute bit at all.
	elf=${BUSYBOX:-/bin/busybox}
	[ -f "$elf" ] || elf=$vkernel
	cp "$elf" "$tmp/noexec"
	chmod 644 "$tmp/noexec"
	refused error 'permission denied' run -- "$tmp/noexec"
}

# --cpus N: the guest sees N CPUs (1 by default); a bad count is refused.
case_cpus()
{
	nproc_bin=$(command -v nproc) || { fail "no nproc on the host"; return; }
	run run -- "$nproc_bin"
	[ "$status" -eq 0 ] && [ "$(cat "$tmp/out")" = 1 ] ||
	    fail "the default guest sees '$(cat "$tmp/out")' CPUs, want 1"
	have=$(nproc)
	run run --cpus "$have" -- "$nproc_bin"
	[ "$status" -eq 0 ] && [ "$(cat "$tmp/out")" = "$have" ] ||
	    fail "--cpus $have: the guest sees '$(cat "$tmp/out")' CPUs"
	refused 2 'invalid --cpus' run --cpus 0 -- "$nproc_bin"
	refused 2 'invalid --cpus' run --cpus two -- "$nproc_bin"
	refused error 'cpus.*host' run --cpus $((have + 1)) -- "$nproc_bin"
}

# What a guest makes vkernel say (an unsupported call) goes to stderr, to
# the file --log names (appended), or nowhere with --quiet; vkernel's own
# errors stay on stderr.
case_log()
{
	perl_bin=$(command -v perl) || { fail "no perl on the host"; return; }
	set -- -e 'syscall(500); print "ran\n"'
	run run -- "$perl_bin" "$@"
	[ "$status" -eq 0 ] && grep -q '^ran$' "$tmp/out" &&
	    grep -q 'unsupported syscall 500' "$tmp/err" ||
	    fail "without --log: status $status, stderr '$(cat "$tmp/err")'"
	run run --quiet -- "$perl_bin" "$@"
	[ "$status" -eq 0 ] && grep -q '^ran$' "$tmp/out" && [ ! -s "$tmp/err" ] ||
	    fail "--quiet: status $status, stderr '$(cat "$tmp/err")'"
	echo "before" >"$tmp/log"
	run run --log "$tmp/log" -- "$perl_bin" "$@"
	[ "$status" -eq 0 ] && [ ! -s "$tmp/err" ] ||
	    fail "--log: status $status, stderr '$(cat "$tmp/err")'"
	[ "$(head -n 1 "$tmp/log")" = before ] &&
	    [ "$(grep -c 'unsupported syscall 500' "$tmp/log")" -eq 1 ] ||
	    fail "--log: the file holds '$(cat "$tmp/log")'"
	refused error 'log' run --log "$tmp/no/such/dir" -- "$perl_bin" "$@"
}

# --platform: ptrace by default, systrap on asking, both said by --stats
# and running a dynamic program (a shell that forks one); another name is
# a usage error.
case_platform()
{
	sh_bin=$(command -v sh) || { fail "no sh on the host"; return; }
	for p in "" ptrace systrap; do
		run run ${p:+--platform=$p} --stats -- "$sh_bin" -c 'echo ok; /bin/true'
		[ "$status" -eq 0 ] && [ "$(cat "$tmp/out")" = ok ] ||
		    fail "--platform=$p: status $status, out '$(cat "$tmp/out")'"
		grep -q "^platform: ${p:-ptrace}\$" "$tmp/err" ||
		    fail "--platform=$p: --stats does not say platform ${p:-ptrace}"
	done
	refused 2 'unknown platform' run --platform=bogus -- "$sh_bin" -c true
}

# --stats counts, under both platforms, the page faults vkernel served
# (the copy-on-write of a fork: the subshell of $(...) is one) and the
# mapping batches its stubs ran (each exec runs one), with their time.
case_stats_faults()
{
	sh_bin=$(command -v sh) || { fail "no sh on the host"; return; }
	for p in ptrace systrap; do
		run run --platform=$p --stats -- "$sh_bin" -c 'echo $(echo ok)'
		[ "$status" -eq 0 ] && [ "$(cat "$tmp/out")" = ok ] ||
		    fail "--platform=$p: status $status, out '$(cat "$tmp/out")'"
		awk '$1 == "(page" && $2 == "fault)" && $3 >= 2 { f = 1 }
		    $1 == "(mapping" && $2 == "batch)" && $3 >= 2 && $4 >= $3 {
		    b = 1 } END { exit !(f && b) }' "$tmp/err" ||
		    fail "--platform=$p: no fault or batch counts: $(cat "$tmp/err")"
	done
}

# --platform=systrap patches the syscall sites of libc that a program
# runs into jumps: in a private copy of each page.  A python that made
# thousands of calls then reads its libc and maps it anew: both the
# original bytes, as the host has them; so too with the patching off.
case_platform_patch()
{
	py=/usr/bin/python3
	[ -x "$py" ] || { fail "no $py on the host"; return; }
	libc=$(ldd "$py" | awk '/libc\.so/ { print $3 }')
	[ -f "$libc" ] || { fail "no libc for $py"; return; }
	want=$(sha256sum < "$libc" | cut -d' ' -f1)
	script='
import hashlib, mmap, os, sys
for i in range(20000):
    os.getpid(); os.stat("/")
with open(sys.argv[1], "rb") as f:
    print(hashlib.sha256(f.read()).hexdigest())
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    print(hashlib.sha256(m).hexdigest())
'
	for env in "" VKERNEL_NO_PATCH=1; do
		env $env "$vkernel" run --platform=systrap -- "$py" -c \
		    "$script" "$libc" </dev/null >"$tmp/out" 2>"$tmp/err"
		status=$?
		[ "$status" -eq 0 ] &&
		    [ "$(cat "$tmp/out")" = "$(printf '%s\n%s' "$want" "$want")" ] ||
		    fail "${env:-patching}: status $status, out '$(cat "$tmp/out")' err '$(head -c 300 "$tmp/err")', want $want"
	done
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
		echo "ok: cli $c"
	else
		any_failed=1
	fi
done
exit "$any_failed"

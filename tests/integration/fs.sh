#!/bin/sh
# Checks the vkernel's file system with real programs: busybox applets that
# read the host tree (ls, cat, sha256sum, find, df, stat) must print under
# "vkernel run --" what they print natively.  Then the safety rules: by
# default the guest's writes land in an in-memory overlay and never on the
# host; "--bind HOST:GUEST:rw" writes through, ":ro" refuses with EROFS;
# "--root DIR" shows only DIR, and a bad --root is refused in one line.
#
# Each vkernel run is a fresh overlay, so each run is a single applet and
# the multi-step round trips (cp -a, tar, diff -r, mv, rm -r) are the
# guest program tests/guest/fs_roundtrip.c.
#
# usage: fs.sh [-b BUSYBOX] [VKERNEL] [CASE...]
#   VKERNEL defaults to $VKERNEL, BUSYBOX to $BUSYBOX or /bin/busybox, which
#   must be statically linked (Debian's busybox-static).  With no CASE every
#   case runs; "fs.sh -l" lists them.
#
# Exits 0 if all cases pass, 1 if any fails (each failure explained on
# stderr), 77 (meson's "skipped") if there is no static busybox or every
# case asked for was skipped, 2 on a usage error.

set -u
# C order for globs and sort, and the same locale natively and in the guest.
LC_ALL=C
export LC_ALL

prog=fs.sh
busybox=${BUSYBOX:-/bin/busybox}
all_cases="ls_root cat_os_release sha256sum find_usr_include df_root
stat_passwd host_untouched overlay_names bind_rw bind_ro root_tree root_bad
fallocate_bind_rw fallocate_enospc statfs_mem df_shape statfs_bind locks
mmap_bind_rw sqlite_wal_bind_rw seek_holes_host overlay_links
overlay_root_attrs host_changes_below bind_alias stat_tree host_attrs_below"

here=$(cd "$(dirname "$0")" && pwd)
. "$here/busybox_args.sh"
# Runs start in /, which every --root tree has: the guest's cwd is ours.
case $vkernel in /*) ;; *) vkernel=$PWD/$vkernel ;; esac
case $busybox in /*) ;; *) busybox=$PWD/$busybox ;; esac
case $tmp in /*) ;; *) tmp=$PWD/$tmp ;; esac
cd / || exit 2
# vkernel run by an ordinary user lives in a user namespace that maps that
# user alone, where other users' files show as the overflow uid: the
# native runs look from such a namespace too, where the host gives one.
native=
if [ "$(id -u)" != 0 ] && unshare --map-current-user true 2>/dev/null; then
	native="unshare --map-current-user"
fi
# The guest's bind mount point, and a name no one else will use in it.
mnt=/mnt
token=vk-fs-$$

failed=0
skipped=0
current=

fail()
{
	echo "FAIL: fs $current: $*" >&2
	failed=1
}

skip()
{
	echo "skip: fs $current: $*"
	skipped=1
}

# Prints the first lines of a file on stderr, for a failure report.
show()
{
	echo "--- $1 (first 10 lines) ---" >&2
	head -n 10 "$2" >&2
}

# Prints the number of lines in $1, a last line without newline included.
count_lines()
{
	n=$(wc -l <"$1" | tr -d ' ')
	[ -z "$(tail -c 1 "$1")" ] || n=$((n + 1))
	echo "$n"
}

# vk ARG...: runs "vkernel run ARG..." with stdin /dev/null, leaving stdout
# and stderr in $tmp/vk.out and $tmp/vk.err and the status in $vk_status.
vk()
{
	"$vkernel" run "$@" </dev/null >"$tmp/vk.out" 2>"$tmp/vk.err"
	vk_status=$?
}

# run_both APPLET ARG...: runs the applet natively and in the vkernel,
# leaving stdout in $tmp/native.out and $tmp/vk.out and the statuses in
# $native_status and $vk_status.  Returns 1, after a failure, unless both
# exit 0: a native failure means the test is wrong for this machine.
run_both()
{
	$native "$busybox" "$@" </dev/null >"$tmp/native.out" \
	    2>"$tmp/native.err"
	native_status=$?
	vk -- "$busybox" "$@"
	if [ "$native_status" -ne 0 ]; then
		fail "natively '$*' exits $native_status: the test is wrong" \
		    "for this machine"
		show "native stderr" "$tmp/native.err"
		return 1
	fi
	if [ "$vk_status" -ne 0 ]; then
		fail "'$*' exits $vk_status under vkernel, 0 natively"
		show "vkernel stderr" "$tmp/vk.err"
		return 1
	fi
	return 0
}

# same WHAT NATIVE VK: the two files must be identical.
same()
{
	if ! cmp -s "$2" "$3"; then
		fail "$1 differs from the native run"
		echo "--- diff native vkernel (first 20 lines) ---" >&2
		"$busybox" diff "$2" "$3" | head -n 20 >&2
		show "vkernel stderr" "$tmp/vk.err"
	fi
}

# compare APPLET ARG...: same status 0 and byte-identical stdout.
compare()
{
	run_both "$@" || return
	same "stdout of '$*'" "$tmp/native.out" "$tmp/vk.out"
}

# Prints the names of an "ls -la" listing, with " -> target" for links,
# sorted; the "total" line is not a name.
ls_names()
{
	awk '$1 != "total" {
		name = $9
		for (i = 10; i <= NF; i++)
			name = name " " $i
		print name
	}' "$1" | sort
}

# Prints the lines of an "ls -la" listing that are regular files, sorted.
ls_files()
{
	awk '$1 ~ /^-/' "$1" | sort
}

case_ls_root()
{
	run_both ls -la / || return
	ls_names "$tmp/native.out" >"$tmp/native.names"
	ls_names "$tmp/vk.out" >"$tmp/vk.names"
	same "the set of names in /" "$tmp/native.names" "$tmp/vk.names"
	# Mount points (/dev, /proc, /tmp) may differ; plain files may not.
	ls_files "$tmp/native.out" >"$tmp/native.files"
	ls_files "$tmp/vk.out" >"$tmp/vk.files"
	same "the regular files in / (mode, links, owner, size, date)" \
	    "$tmp/native.files" "$tmp/vk.files"
}

case_cat_os_release()
{
	compare cat /etc/os-release
}

case_sha256sum()
{
	# The first 50 regular files of /usr/bin (in C order: see LC_ALL).
	set -- "$busybox" /etc/passwd
	n=0
	for f in /usr/bin/*; do
		[ "$n" -lt 50 ] || break
		if [ -f "$f" ] && [ -r "$f" ]; then
			set -- "$@" "$f"
			n=$((n + 1))
		fi
	done
	compare sha256sum "$@"
}

case_find_usr_include()
{
	if [ ! -d /usr/include ]; then
		skip "no /usr/include"
		return
	fi
	run_both find /usr/include || return
	# Directory order may differ; the count and the set may not.
	native_n=$(count_lines "$tmp/native.out")
	vk_n=$(count_lines "$tmp/vk.out")
	[ "$native_n" -eq "$vk_n" ] ||
	    fail "find /usr/include: $vk_n lines under vkernel, $native_n" \
		"natively"
	sort "$tmp/native.out" >"$tmp/native.sorted"
	sort "$tmp/vk.out" >"$tmp/vk.sorted"
	same "the set of names under /usr/include" "$tmp/native.sorted" \
	    "$tmp/vk.sorted"
}

case_df_root()
{
	vk -- "$busybox" df /
	if [ "$vk_status" -ne 0 ]; then
		fail "df / exits $vk_status"
		show "vkernel stderr" "$tmp/vk.err"
		return
	fi
	head -n 1 "$tmp/vk.out" | grep -q '^Filesystem ' ||
	    fail "df / prints no 'Filesystem' header line"
	[ "$(count_lines "$tmp/vk.out")" -ge 2 ] ||
	    fail "df / prints no line for /"
	[ "$failed" -eq 0 ] || show "vkernel stdout" "$tmp/vk.out"
}

# Prints the fields of a busybox "stat" output that must not change under
# the vkernel: Size, Inode, Links, and the first Access line (mode and
# owners; the second is the access time).
stat_fields()
{
	awk '
	{
		for (i = 1; i < NF; i++)
			if ($i == "Size:" || $i == "Inode:" || $i == "Links:")
				print $i, $(i + 1)
	}
	/^Access: \(/ && !done { print; done = 1 }' "$1"
}

case_stat_passwd()
{
	run_both stat /etc/passwd || return
	stat_fields "$tmp/native.out" >"$tmp/native.fields"
	stat_fields "$tmp/vk.out" >"$tmp/vk.fields"
	if [ "$(count_lines "$tmp/native.fields")" -ne 4 ]; then
		fail "cannot find Size, Inode, Links and Access in the" \
		    "native output: the test is wrong for this busybox"
		show "native stdout" "$tmp/native.out"
		return
	fi
	same "Size, Inode, Links or Access of /etc/passwd" \
	    "$tmp/native.fields" "$tmp/vk.fields"
}

# guest_ok WHAT ARG...: "vkernel run ARG..." must exit 0.
guest_ok()
{
	what=$1
	shift
	vk "$@"
	if [ "$vk_status" -ne 0 ]; then
		fail "$what: exit status $vk_status, want 0"
		show "vkernel stderr" "$tmp/vk.err"
	fi
}

# guest_refused WHAT ARG...: "vkernel run ARG..." must fail, by an exit
# status below 128 (a refusal, not a crash).
guest_refused()
{
	what=$1
	shift
	vk "$@"
	if [ "$vk_status" -eq 0 ] || [ "$vk_status" -ge 128 ]; then
		fail "$what: exit status $vk_status, want a failure below 128"
		show "vkernel stderr" "$tmp/vk.err"
	fi
}

# The file in the host's $mnt that a guest escaping its bind would write:
# if it is there, the test fails and removes it, since the test made it.
check_no_escape()
{
	if [ -e "$mnt/$token" ]; then
		fail "the guest wrote $mnt/$token on the host, not in the bind"
		rm -f "$mnt/$token"
	fi
}

case_host_untouched()
{
	h=$tmp/host
	mkdir "$h" "$h/tree" && echo keep >"$h/f" && echo data >"$h/g" &&
	    echo leaf >"$h/tree/leaf" && chmod 644 "$h/g" ||
	    { fail "cannot make $h"; return; }
	# Each change succeeds in the guest, in its overlay, and none of it
	# reaches the host.
	guest_ok "rm $h/f" -- "$busybox" rm "$h/f"
	[ "$(cat "$h/f" 2>/dev/null)" = keep ] ||
	    fail "the guest's rm removed the host's $h/f"
	guest_ok "mkdir $h/new" -- "$busybox" mkdir "$h/new"
	[ ! -e "$h/new" ] || fail "the guest's mkdir made $h/new on the host"
	guest_ok "cp /etc/passwd $h/copy" -- "$busybox" cp /etc/passwd \
	    "$h/copy"
	[ ! -e "$h/copy" ] || fail "the guest's cp made $h/copy on the host"
	guest_ok "truncate -s 0 $h/g" -- "$busybox" truncate -s 0 "$h/g"
	[ "$(cat "$h/g" 2>/dev/null)" = data ] ||
	    fail "the guest's truncate emptied the host's $h/g"
	guest_ok "chmod 600 $h/g" -- "$busybox" chmod 600 "$h/g"
	[ "$("$busybox" stat -c %a "$h/g" 2>/dev/null)" = 644 ] ||
	    fail "the guest's chmod changed the host's $h/g"
	guest_ok "mv $h/g $h/g2" -- "$busybox" mv "$h/g" "$h/g2"
	[ -f "$h/g" ] && [ ! -e "$h/g2" ] ||
	    fail "the guest's mv moved the host's $h/g"
	guest_ok "rm -r $h/tree" -- "$busybox" rm -r "$h/tree"
	[ -f "$h/tree/leaf" ] ||
	    fail "the guest's rm -r removed the host's $h/tree"
}

# One guest sees its own changes to names it looked up before, in the
# overlay over the host: what a name was found to be must not outlive a
# removal, creation or rename, even while its old directory is still
# someone's cwd.
case_overlay_names()
{
	h=$tmp/names
	mkdir "$h" "$h/tree" "$h/other" && echo host >"$h/f" &&
	    echo leaf >"$h/tree/leaf" || { fail "cannot make $h"; return; }
	guest_ok "the name script" -- "$busybox" sh -c '
	    h=$1
	    cat $h/f; rm $h/f; [ -e $h/f ] || echo "f gone"
	    echo new >$h/f; cat $h/f
	    cd $h/tree; ls; rm -r $h/tree; mkdir $h/tree
	    echo "tree holds [$(ls -A $h/tree)]"
	    [ -e $h/tree/leaf ] || echo "no leaf"; cd /
	    [ -e $h/x ] || echo "no x"; echo x >$h/x; cat $h/x
	    mv $h/x $h/other/y; [ -e $h/x ] || echo "x moved"; cat $h/other/y
	    [ "$(ls -di $h/other/.. | cut -d" " -f1)" = \
	        "$(ls -di $h | cut -d" " -f1)" ] && echo "other/.. is h"
	    mkdir $h/d; mv $h/d $h/other/d
	    [ "$(cd $h/other/d/.. && pwd -P)" = $h/other ] && echo "d/.. moved"
	    ln $h/other/y $h/z; echo more >>$h/z; cat $h/other/y
	    mv $h/f $h/z; cat $h/z; [ -e $h/f ] || echo "f moved over z"
	' sh "$h"
	printf '%s\n' host "f gone" new leaf "tree holds []" "no leaf" "no x" x \
	    "x moved" x "other/.. is h" "d/.. moved" x more new \
	    "f moved over z" >"$tmp/names.want"
	same "the guest's view of names it changed" "$tmp/names.want" \
	    "$tmp/vk.out"
	[ -f "$h/tree/leaf" ] && [ "$(cat "$h/f")" = host ] ||
	    fail "the name script changed the host's $h"
}

# A hard link made in the overlay to a file of the host's layer is that
# file: the same inode and device through both names, two links, one
# content (the copy-up keeps the host's inode number).  git relies on it
# to clone a local repository (its objects are hard-linked, then checked).
case_overlay_links()
{
	h=$tmp/links
	mkdir "$h" && echo a >"$h/f" || { fail "cannot make $h"; return; }
	guest_ok "ln and stat" -- "$busybox" sh -c '
	    ln $1/f $1/g && echo x >>$1/g && cat $1/f &&
	    stat -c "%i %d %h" $1/f $1/g' sh "$h"
	{ echo a; echo x; stat -c "%i" "$h/f"; } >"$tmp/links.want"
	sed -n '1,2p' "$tmp/vk.out" >"$tmp/links.got"
	sed -n '3s/ .*//p' "$tmp/vk.out" >>"$tmp/links.got"
	same "the linked file's content and inode" "$tmp/links.want" \
	    "$tmp/links.got"
	[ "$(sed -n 3p "$tmp/vk.out")" = "$(sed -n 4p "$tmp/vk.out")" ] &&
	    [ "$(sed -n '3s/.* //p' "$tmp/vk.out")" = 2 ] ||
	    fail "the two names differ: $(tr '\n' ';' <"$tmp/vk.out")"
	[ "$(cat "$h/f")" = a ] && [ ! -e "$h/g" ] ||
	    fail "the host's $h changed"
	git=$(command -v git) || { fail "no git on the host"; return; }
	git init -q "$h/repo" && echo hi >"$h/repo/x" &&
	    git -C "$h/repo" add x &&
	    git -C "$h/repo" -c user.name=t -c user.email=t@t commit -qm first ||
	    { fail "cannot make a repository"; return; }
	guest_ok "git clone of a local repository" -- "$git" clone -q \
	    "$h/repo" "$h/clone"
	vk -- "$git" -C "$h/repo" log --format=%s
	[ "$(cat "$tmp/vk.out")" = first ] ||
	    fail "git log in the guest: '$(cat "$tmp/vk.out")'"
}

# The overlay's root and a directory the guest has not changed show the
# host's attributes: size, links, times, mode, owner and inode; once the
# guest changed one, its mode, owner and inode still.
case_overlay_root_attrs()
{
	compare stat -c '%n %s %h %Y %Z %a %u %g %i' / /usr || return
	h=$tmp/attrs
	mkdir "$h" && chmod 751 "$h" || { fail "cannot make $h"; return; }
	$native "$busybox" stat -c '%a %u %g %i' "$h" >"$tmp/native.out"
	guest_ok "touch in $h and stat it" -- "$busybox" sh -c \
	    "touch $h/$token && stat -c '%a %u %g %i' $h"
	same "stat of a directory after a change" "$tmp/native.out" \
	    "$tmp/vk.out"
}

# await_looked FIFO: opens fd 3 on the FIFO the guest reads, then waits
# (30 s at most) until the guest has printed "looked".
await_looked()
{
	exec 3>"$1"
	i=0
	while ! grep -q looked "$tmp/vk.out" && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# below_run WHO: a guest (as WHO: vkernel's user, or 65534 through python3)
# looks at names in $h, then waits on its stdin while the host creates one,
# removes one and makes a directory there; it must see each change on
# its next look 10 ms or more later, as a guest on Linux's overlayfs over
# a live host tree would at its next.
below_run()
{
	who=$1
	chmod 755 "$tmp" && rm -rf "$h" "$tmp/below.fifo" "$tmp/vk.out" &&
	    mkdir "$h" && echo old >"$h/gone" &&
	    chmod 755 "$h" && mkfifo "$tmp/below.fifo" ||
	    { fail "cannot make $h"; return 1; }
	set -- "$busybox"
	[ "$who" = user ] && set -- /usr/bin/python3 -c '
import os, sys
os.setgroups([]); os.setresgid(65534, 65534, 65534)
os.setresuid(65534, 65534, 65534); os.execv(sys.argv[1], sys.argv[1:])' "$@"
	"$vkernel" run -- "$@" sh -c '
	    h=$1
	    [ -e $h/late ] || echo "no late"; cat $h/gone
	    [ -d $h/dir ] || echo "no dir"; echo looked
	    read x
	    cat $h/late; [ -e $h/gone ] || echo "gone is gone"
	    cat $h/gone 2>/dev/null || echo "cannot cat gone"
	    [ -d $h/dir ] && echo "dir seen"
	    mkdir $h/dir 2>/dev/null || echo "mkdir dir refused"
	    ls $h' sh "$h" <"$tmp/below.fifo" >"$tmp/vk.out" 2>"$tmp/vk.err" &
	pid=$!
	await_looked "$tmp/below.fifo"
	echo new >"$h/late" && rm "$h/gone" && mkdir "$h/dir"
	# The name cache asks the host for a directory at most every 10 ms.
	sleep 0.05
	echo go >&3
	exec 3>&-
	wait $pid
	printf '%s\n' "no late" old "no dir" looked new "gone is gone" \
	    "cannot cat gone" "dir seen" "mkdir dir refused" dir late \
	    >"$tmp/below.want"
	same "what the guest ($who) saw of host changes" "$tmp/below.want" \
	    "$tmp/vk.out"
}

case_host_changes_below()
{
	h=$tmp/below
	below_run self
	# The guest is root when vkernel's user is: then it drops to 65534.
	[ "$(id -u)" != 0 ] || below_run user
	rm -rf "$h"
}

# The status of every entry of a host tree, as "ls -lainR" prints it
# (inode, mode, links, owner, size, time, d_type-sorted names), is the
# host's.
case_stat_tree()
{
	if [ ! -d /usr/include ]; then
		skip "no /usr/include"
		return
	fi
	compare ls -lainR --full-time /usr/include
}

# A guest stats a host file and lists a host directory, then waits while
# the host changes the file's size and mode (its directory's names stay)
# and adds a name to the directory: 10 ms or more later it sees all of it.
case_host_attrs_below()
{
	h=$tmp/attrs
	chmod 755 "$tmp" && rm -rf "$h" "$tmp/attrs.fifo" "$tmp/vk.out" &&
	    mkdir "$h" "$h/d" && echo old >"$h/f" && chmod 644 "$h/f" &&
	    chmod 755 "$h" "$h/d" && : >"$h/d/early" &&
	    mkfifo "$tmp/attrs.fifo" || { fail "cannot make $h"; return; }
	"$vkernel" run -- "$busybox" sh -c '
	    h=$1
	    stat -c "%s %a" $h/f; ls $h/d; echo looked
	    read x
	    stat -c "%s %a" $h/f; cat $h/f; ls $h/d' sh "$h" \
	    <"$tmp/attrs.fifo" >"$tmp/vk.out" 2>"$tmp/vk.err" &
	pid=$!
	await_looked "$tmp/attrs.fifo"
	echo longer >>"$h/f" && chmod 600 "$h/f" && : >"$h/d/late"
	sleep 0.05
	echo go >&3
	exec 3>&-
	wait $pid
	printf '%s\n' "4 644" early looked "11 600" old longer early late \
	    >"$tmp/attrs.want"
	same "what the guest saw of host changes to a file" \
	    "$tmp/attrs.want" "$tmp/vk.out"
	rm -rf "$h"
}

# One host directory bound twice, rw and ro: a name the guest makes or
# removes through the rw bind is seen through the ro one at once, though
# the name cache trusts a read-only host directory for 10 ms.
case_bind_alias()
{
	h=$tmp/alias
	rm -rf "$h" && mkdir "$h" || { fail "cannot make $h"; return; }
	"$vkernel" run --bind "$h:/mnt:rw" --bind "$h:/opt:ro" -- \
	    "$busybox" sh -c '
	    for i in 1 2 3 4 5 6 7 8; do
		[ -e /opt/n$i ] || echo absent
		: >/mnt/n$i
		[ -e /opt/n$i ] && echo seen
		rm -f /mnt/n$i
		[ -e /opt/n$i ] || echo gone
	    done' >"$tmp/vk.out" 2>"$tmp/vk.err"
	for i in 1 2 3 4 5 6 7 8; do
		printf '%s\n' absent seen gone
	done >"$tmp/alias.want"
	same "names made through the rw bind, seen through the ro one" \
	    "$tmp/alias.want" "$tmp/vk.out"
	rm -rf "$h"
}

case_bind_rw()
{
	h=$tmp/bind-rw
	mkdir "$h" && echo host >"$h/f" || { fail "cannot make $h"; return; }
	if [ -e "$mnt/$token" ]; then
		fail "the host already has $mnt/$token"
		return
	fi
	guest_ok "touch $mnt/$token" --bind "$h:$mnt:rw" -- \
	    "$busybox" touch "$mnt/$token"
	check_no_escape
	[ -f "$h/$token" ] || fail "touch in the rw bind made no $h/$token"
	guest_ok "cp /etc/passwd" --bind "$h:$mnt:rw" -- \
	    "$busybox" cp /etc/passwd "$mnt/$token"
	check_no_escape
	cmp -s /etc/passwd "$h/$token" ||
	    fail "cp through the rw bind did not write /etc/passwd's bytes"
	guest_ok "rm $mnt/f" --bind "$h:$mnt:rw" -- "$busybox" rm "$mnt/f"
	[ ! -e "$h/f" ] || fail "rm in the rw bind left the host's $h/f"
}

case_fallocate_bind_rw()
{
	h=$tmp/falloc-rw
	mkdir "$h" || { fail "cannot make $h"; return; }
	guest_ok "fallocate -l 12288" --bind "$h:$mnt:rw" -- \
	    "$busybox" fallocate -l 12288 "$mnt/f"
	[ "$(stat -c %s "$h/f" 2>/dev/null)" = 12288 ] ||
	    fail "fallocate in the rw bind did not make a 12288-byte $h/f"
	# The host allocated it: a truncation would leave no blocks.
	[ "$(stat -c %b "$h/f" 2>/dev/null)" -ge 24 ] ||
	    fail "fallocate in the rw bind allocated no blocks on the host"
}

# python3's mmap of a host file in an rw bind: what it stores reaches the
# host file, flushed or not, and read() sees it before.
case_mmap_bind_rw()
{
	py=/usr/bin/python3
	[ -x "$py" ] || { skip "no $py"; return; }
	h=$tmp/mmap-rw
	mkdir "$h" || { fail "cannot make $h"; return; }
	"$py" -c "open('$h/f', 'wb').write(b'x' * 8192)"
	guest_ok "python3 mmap" --bind "$h:$mnt:rw" -- "$py" -c "
import mmap
f = open('$mnt/f', 'r+b')
m = mmap.mmap(f.fileno(), 0)
m[0:5] = b'HELLO'
m.flush()
print(f.read(5).decode())
m[4100:4105] = b'WORLD'
f.seek(4100)
print(f.read(5).decode())"
	[ "$(cat "$tmp/vk.out")" = "HELLO
WORLD" ] || fail "read() after stores through the mapping says" \
	    "'$(cat "$tmp/vk.out")', want HELLO, then WORLD"
	[ "$("$py" -c "d = open('$h/f', 'rb').read(); print(len(d), \
	    d[0:5].decode(), d[4100:4105].decode(), d.count(b'x'))")" = \
	    "8192 HELLO WORLD 8182" ] ||
	    fail "the host file does not hold what the guest's mapping stored"
}

# SQLite in WAL mode keeps its index in a MAP_SHARED file beside the
# database: in an rw bind, two connections see each other's rows and the
# host's sqlite3 reads them afterwards.
case_sqlite_wal_bind_rw()
{
	py=/usr/bin/python3
	[ -x "$py" ] && "$py" -c "import sqlite3" 2>/dev/null ||
	    { skip "no python3 with sqlite3"; return; }
	h=$tmp/sqlite-rw
	mkdir "$h" || { fail "cannot make $h"; return; }
	guest_ok "python3 sqlite3 WAL" --bind "$h:$mnt:rw" -- "$py" -c "
import sqlite3
db = sqlite3.connect('$mnt/t.db')
print(db.execute('pragma journal_mode=wal').fetchone()[0])
db.execute('create table t(x)')
db.executemany('insert into t values (?)', [(i,) for i in range(5000)])
db.commit()
print(sqlite3.connect('$mnt/t.db').execute('select count(*), sum(x) from t').fetchone())"
	[ "$(cat "$tmp/vk.out")" = "wal
(5000, 12497500)" ] || fail "in the guest sqlite3 says '$(cat "$tmp/vk.out")'"
	[ "$("$py" -c "import sqlite3; print(sqlite3.connect('$h/t.db').execute('select count(*), sum(x) from t').fetchone())")" = \
	    "(5000, 12497500)" ] || fail "the host's sqlite3 does not find the rows"
}

# SEEK_DATA and SEEK_HOLE on a sparse host file, seen through the
# read-only host root, find what they find natively.
case_seek_holes_host()
{
	py=/usr/bin/python3
	[ -x "$py" ] || { skip "no $py"; return; }
	f=$tmp/sparse
	"$py" -c "f = open('$f', 'wb'); f.seek(1 << 20); f.write(b'x');
f.seek(3 << 20); f.write(b'y')"
	prog="import os
fd = os.open('$f', os.O_RDONLY)
print(os.lseek(fd, 0, os.SEEK_DATA), os.lseek(fd, 1 << 20, os.SEEK_HOLE),
    os.lseek(fd, (1 << 20) + 4096, os.SEEK_DATA), os.lseek(fd, 0, os.SEEK_CUR))"
	"$py" -c "$prog" >"$tmp/native.out" 2>&1 ||
	    { fail "natively the seeks fail"; return; }
	guest_ok "python3 seeks" -- "$py" -c "$prog"
	same "the seeks" "$tmp/native.out" "$tmp/vk.out"
}

# fallocate beyond --mem is ENOSPC, and gives back what it took.
case_fallocate_enospc()
{
	vk --mem 64M -- "$busybox" sh -c "$busybox fallocate -l 100M \
	    /dev/shm/big; echo big \$?; $busybox fallocate -l 32M \
	    /dev/shm/small; echo small \$?"
	grep -iq 'no space left on device' "$tmp/vk.err" ||
	    fail "fallocate -l 100M with --mem 64M does not say ENOSPC"
	[ "$(cat "$tmp/vk.out")" = "big 1
small 0" ] || fail "fallocate says '$(cat "$tmp/vk.out")', want" \
	    "'big 1', then 'small 0'"
	[ "$failed" -eq 0 ] || show "vkernel stderr" "$tmp/vk.err"
}

# A tmpfs's size is --mem, and what the guest holds is used.
case_statfs_mem()
{
	guest_ok "stat -f /dev/shm" --mem 256M -- "$busybox" stat -f \
	    -c '%t %b %S %l' /dev/shm
	[ "$(cat "$tmp/vk.out")" = "1021994 65536 4096 255" ] ||
	    fail "stat -f /dev/shm says '$(cat "$tmp/vk.out")', want" \
		"'1021994 65536 4096 255' (tmpfs, 256 MiB)"
	guest_ok "df -k /tmp" --mem 256M -- "$busybox" df -k /tmp
	# The overlay on / holds /tmp: its upper tmpfs's figures.
	awk 'NR == 2 && $1 == "overlay" && $2 == 262144 && $3 > 0 &&
	    $3 + $4 == 262144 && $6 == "/" { ok = 1 } END { exit !ok }' \
	    "$tmp/vk.out" ||
	    fail "df -k /tmp does not show a 262144 KiB overlay on /"
	[ "$failed" -eq 0 ] || show "vkernel stdout" "$tmp/vk.out"
}

# Prints the shape of df output: the header, then per line the number
# of fields and which are numbers.
df_shape()
{
	awk 'NR == 1 { $1 = $1; print; next }
	{
		s = NF ":"
		for (i = 2; i < NF; i++)
			s = s ($i ~ /^[0-9]+%?$/ ? " n" : " w")
		print s
	}' "$1"
}

# df (busybox and coreutils) and stat -f print what they print natively,
# but for the figures themselves.
case_df_shape()
{
	for p in / /tmp; do
		run_both df "$p" || return
		df_shape "$tmp/native.out" >"$tmp/native.shape"
		df_shape "$tmp/vk.out" >"$tmp/vk.shape"
		same "the shape of busybox df $p" "$tmp/native.shape" \
		    "$tmp/vk.shape"
		if [ -x /usr/bin/df ]; then
			/usr/bin/df "$p" >"$tmp/native.out" 2>&1
			vk -- /usr/bin/df "$p"
			df_shape "$tmp/native.out" >"$tmp/native.shape"
			df_shape "$tmp/vk.out" >"$tmp/vk.shape"
			same "the shape of df $p" "$tmp/native.shape" \
			    "$tmp/vk.shape"
		fi
	done
	# The type's name is busybox's to know (it has no overlayfs).
	run_both stat -f / || return
	for w in native vk; do
		sed 's/ID: [0-9a-f]*/ID: N/; s/[0-9][0-9]*/N/g; s/Type: .*//' \
		    "$tmp/$w.out" | tr -s ' ' >"$tmp/$w.shape"
	done
	same "the shape of stat -f /" "$tmp/native.shape" "$tmp/vk.shape"
}

# A host directory's figures are the host's; a read-only bind says so.
case_statfs_bind()
{
	h=$tmp/statfs-bind
	mkdir "$h" || { fail "cannot make $h"; return; }
	native=$("$busybox" stat -f -c '%t %b %S %l' "$h")
	guest_ok "stat -f $mnt" --bind "$h:$mnt:ro" -- "$busybox" stat -f \
	    -c '%t %b %S %l' "$mnt"
	[ "$(cat "$tmp/vk.out")" = "$native" ] ||
	    fail "stat -f of the bind says '$(cat "$tmp/vk.out")', the" \
		"host '$native'"
	command -v python3 >/dev/null || return
	guest_ok "statvfs" --bind "$h:$mnt:ro" -- python3 -c \
	    "import os; print(os.statvfs('$mnt').f_flag & os.ST_RDONLY)"
	[ "$(cat "$tmp/vk.out")" = 1 ] ||
	    fail "statvfs of a ro bind has no ST_RDONLY"
}

case_bind_ro()
{
	h=$tmp/bind-ro
	mkdir "$h" && echo host >"$h/f" || { fail "cannot make $h"; return; }
	if [ -e "$mnt/$token" ]; then
		fail "the host already has $mnt/$token"
		return
	fi
	# The bind is there, and readable...
	guest_ok "cat $mnt/f" --bind "$h:$mnt:ro" -- "$busybox" cat "$mnt/f"
	[ "$(cat "$tmp/vk.out")" = host ] ||
	    fail "cat $mnt/f in the ro bind does not say 'host'"
	# ...but every write is refused with EROFS, and nothing appears.
	guest_refused "touch $mnt/$token" --bind "$h:$mnt:ro" -- \
	    "$busybox" touch "$mnt/$token"
	grep -iq 'read-only file system' "$tmp/vk.err" ||
	    fail "touch in the ro bind does not say 'Read-only file system'"
	check_no_escape
	[ ! -e "$h/$token" ] || fail "touch in the ro bind made $h/$token"
	guest_refused "rm $mnt/f" --bind "$h:$mnt:ro" -- "$busybox" rm "$mnt/f"
	[ -f "$h/f" ] || fail "rm in the ro bind removed the host's $h/f"
	guest_refused "mkdir $mnt/d" --bind "$h:$mnt:ro" -- \
	    "$busybox" mkdir "$mnt/d"
	[ ! -e "$h/d" ] || fail "mkdir in the ro bind made $h/d"
}

case_root_tree()
{
	r=$tmp/root
	# The mount points a root has: the vkernel mounts devfs, procfs and
	# sysfs there, and would make them in its overlay if they were missing.
	mkdir -p "$r/bin" "$r/etc" "$r/dev" "$r/proc" "$r/sys" "$r/tmp" &&
	    cp "$busybox" "$r/bin/busybox" &&
	    echo "vk-fs root marker" >"$r/etc/marker" ||
	    { fail "cannot make $r"; return; }
	"$busybox" ls "$r" >"$tmp/want" 2>&1
	guest_ok "--root $r ls /" --root "$r" -- /bin/busybox ls /
	if ! cmp -s "$tmp/want" "$tmp/vk.out"; then
		fail "ls / with --root lists more or less than the tree"
		show "want" "$tmp/want"
		show "vkernel stdout" "$tmp/vk.out"
	fi
	guest_ok "--root $r cat /etc/marker" --root "$r" -- \
	    /bin/busybox cat /etc/marker
	[ "$(cat "$tmp/vk.out")" = "vk-fs root marker" ] ||
	    fail "cat /etc/marker with --root does not read the tree's file"
}

# refused_once ERE ARG...: "vkernel run ARG..." must fail below 128 with
# exactly one stderr line, matching ERE (case-insensitive) once the paths
# under $tmp are taken out.
refused_once()
{
	ere=$1
	shift
	guest_refused "run $*" "$@"
	lines=$(count_lines "$tmp/vk.err")
	sed -e "s|$tmp/[A-Za-z0-9_.-]*||g" "$tmp/vk.err" >"$tmp/msg"
	if [ "$lines" -ne 1 ]; then
		fail "'run $*' prints $lines lines on stderr, want exactly 1"
		show "vkernel stderr" "$tmp/vk.err"
	elif ! grep -Eiq -- "$ere" "$tmp/msg"; then
		fail "'run $*' says '$(cat "$tmp/vk.err")', which does not" \
		    "match /$ere/"
	fi
}

case_root_bad()
{
	: >"$tmp/plain"
	refused_once 'no such file' --root "$tmp/missing" -- "$busybox" true
	refused_once 'not a directory' --root "$tmp/plain" -- "$busybox" true
}

# Locks between processes of one guest: flock(1) in a shell, and a python3
# program whose lockf and flock must tell what they tell natively.
case_locks()
{
	guest_ok "flock(1)" -- /usr/bin/flock /tmp/l /bin/sh -c \
	    '/usr/bin/flock -n /tmp/l true; echo inner $?;
	    /usr/bin/flock -n -s /tmp/m true; echo other $?'
	[ "$(cat "$tmp/vk.out")" = "inner 1
other 0" ] || fail "flock -n under flock of the same file says" \
	    "'$(cat "$tmp/vk.out")', want 'inner 1', then 'other 0'"
	py=/usr/bin/python3
	[ -x "$py" ] || { skip "no $py"; return; }
	"$py" "$here/locks.py" "$tmp/lockfile" >"$tmp/native.out" 2>&1 ||
	    { fail "natively locks.py fails"; return; }
	guest_ok "python3 locks.py" -- "$py" "$here/locks.py" /tmp/lockfile
	same "locks.py's output" "$tmp/native.out" "$tmp/vk.out"
}

[ $# -gt 0 ] || set -- $all_cases
for c in "$@"; do
	case " $(echo $all_cases) " in
	*" $c "*) ;;
	*) echo "$prog: no case '$c' (try -l)" >&2; exit 2 ;;
	esac
done
any_failed=0
all_skipped=1
for c in "$@"; do
	current=$c
	failed=0
	skipped=0
	"case_$c"
	if [ "$failed" -ne 0 ]; then
		any_failed=1
		all_skipped=0
	elif [ "$skipped" -eq 0 ]; then
		echo "ok: fs $c"
		all_skipped=0
	fi
done
[ "$any_failed" -eq 0 ] || exit 1
[ "$all_skipped" -eq 0 ] || exit 77
exit 0

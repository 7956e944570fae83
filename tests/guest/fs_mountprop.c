/*
 * Verifies mount propagation as guest root: mount(2)'s MS_SHARED,
 * MS_PRIVATE, MS_SLAVE and MS_UNBINDABLE (with MS_REC, as "mount
 * --make-rprivate /") and mountinfo's tags for them (shared:N, master:N,
 * unbindable); a bind of a shared mount and a namespace's copy are its
 * peers; a mount made below a shared mount in one namespace shows in
 * the other, and so does its unmount; a slave's tag names its former
 * group, and an unbindable mount cannot be bound; an unprivileged user
 * gets EPERM (also when the program runs as one).  Natively it runs in a
 * mount namespace of its own.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "guest.h"

static char top[64], da[96], db[96], dsub[128], dsub2[128], dc[96];

/*
 * The tags mountinfo shows for the mount at path (between its options
 * and " - "), "" for none; NULL when nothing is mounted there.
 */
static const char *
tags(const char *path)
{
	static char line[1024], out[128];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	const char *found = NULL;

	while (f != NULL && found == NULL && fgets(line, sizeof(line), f)) {
		char point[128], *dash;
		int end = 0;
		size_t n;

		if (sscanf(line, "%*d %*d %*s %*s %127s %*s %n", point,
		    &end) != 1 || strcmp(point, path) != 0 ||
		    (dash = strstr(line + end, "- ")) == NULL)
			continue;
		n = (size_t)(dash - (line + end));
		snprintf(out, sizeof(out), "%.*s", (int)n, line + end);
		while (n > 0 && out[n - 1] == ' ')
			out[--n] = '\0';
		found = out;
	}
	if (f != NULL)
		fclose(f);
	return found;
}

/* The N of "shared:N" in path's tags, or 0. */
static int
group_of(const char *path)
{
	const char *t = tags(path);
	int n = 0;

	if (t != NULL && strncmp(t, "shared:", 7) == 0)
		n = atoi(t + 7);
	return n;
}

static bool
tagged(const char *path, const char *want)
{
	const char *t = tags(path);

	return CHECK(t != NULL && strcmp(t, want) == 0, "%s: \"%s\", not "
	    "\"%s\"", path, t != NULL ? t : "(no mount)", want);
}

/* Types and tags in one namespace. */
static void
test_types(int *groupp)
{
	char want[32];
	int g;

	CHECK_OK(guest_mount("vkt", da, "tmpfs", 0, NULL));
	CHECK_OK(mkdir(dsub, 0755));
	CHECK_OK(mkdir(dsub2, 0755));
	tagged(da, "");
	CHECK_ERR(guest_mount(NULL, da, NULL, MS_SHARED | MS_PRIVATE, NULL),
	    EINVAL);
	CHECK_OK(guest_mount(NULL, da, NULL, MS_SHARED, NULL));
	g = group_of(da);
	CHECK(g > 0, "shared: %d", g);
	/* Shared again: the same group. */
	CHECK_OK(guest_mount(NULL, da, NULL, MS_SHARED, NULL));
	CHECK_EQ(group_of(da), g);
	CHECK_OK(guest_mount(da, db, NULL, MS_BIND, NULL));
	snprintf(want, sizeof(want), "shared:%d", g);
	tagged(db, want);
	/* A slave of a mount that had no peers is private. */
	CHECK_OK(guest_mount("vkt", dc, "tmpfs", 0, NULL));
	CHECK_OK(guest_mount(NULL, dc, NULL, MS_SHARED, NULL));
	CHECK(group_of(dc) > 0 && group_of(dc) != g, "a group of its own");
	CHECK_OK(guest_mount(NULL, dc, NULL, MS_SLAVE, NULL));
	tagged(dc, "");
	CHECK_OK(guest_mount(NULL, dc, NULL, MS_UNBINDABLE, NULL));
	tagged(dc, "unbindable");
	CHECK_ERR(guest_mount(dc, dsub2, NULL, MS_BIND, NULL), EINVAL);
	CHECK_OK(guest_mount(NULL, dc, NULL, MS_PRIVATE | MS_REC, NULL));
	tagged(dc, "");
	CHECK_OK(umount2(dc, 0));
	*groupp = g;
}

/*
 * A child in a namespace of its own: its copies are peers; what each
 * side mounts or unmounts below them the other sees.
 */
static void
test_peers(int g)
{
	int up[2], down[2];
	char want[32];
	pid_t pid;

	if (pipe(up) < 0 || pipe(down) < 0)
		return;
	snprintf(want, sizeof(want), "shared:%d", g);
	pid = fork();
	if (pid == 0) {
		CHECK_OK(unshare(CLONE_NEWNS));
		tagged(da, want);
		CHECK_OK(guest_mount("sub", dsub, "tmpfs", 0, NULL));
		CHECK(group_of(dsub) > 0 && group_of(dsub) != g,
		    "the new mount is shared");
		guest_step(up[1]);
		guest_await(down[0]);
		CHECK(tags(dsub2) != NULL, "the parent's mount seen");
		CHECK_OK(umount2(dsub, 0));
		/* A slave names the group it had peers in. */
		CHECK_OK(guest_mount(NULL, db, NULL, MS_SLAVE, NULL));
		snprintf(want, sizeof(want), "master:%d", g);
		tagged(db, want);
		guest_step(up[1]);
		_exit(guest_done() == 0 ? 0 : 1);
	}
	guest_await(up[0]);
	CHECK(tags(dsub) != NULL, "the child's mount seen");
	CHECK(group_of(dsub) > 0, "and shared");
	CHECK_OK(guest_mount("sub2", dsub2, "tmpfs", 0, NULL));
	guest_step(down[1]);
	guest_await(up[0]);
	CHECK(tags(dsub) == NULL, "the child's unmount seen");
	CHECK(tags(dsub2) != NULL, "the parent's own mount stays");
	CHECK(guest_child_ok(pid), "the child in its namespace");
	CHECK_OK(umount2(dsub2, 0));
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

/* Without CAP_SYS_ADMIN: EPERM. */
static void
unprivileged(const void *arg)
{
	CHECK_ERR(guest_mount(NULL, (const char *)arg, NULL, MS_PRIVATE, NULL),
	    EPERM);
}

int
main(void)
{
	int g = 0;

	if (geteuid() != 0) {
		/* An ordinary user: EPERM for "mount --make-rprivate /". */
		CHECK_ERR(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC,
		    NULL), EPERM);
		return guest_done();
	}
	/* What container tools run first; natively, all in our own. */
	CHECK_OK(unshare(CLONE_NEWNS));
	CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL));
	snprintf(top, sizeof(top), "/tmp/vkprop.%d", getpid());
	snprintf(da, sizeof(da), "%s/a", top);
	snprintf(db, sizeof(db), "%s/b", top);
	snprintf(dc, sizeof(dc), "%s/c", top);
	snprintf(dsub, sizeof(dsub), "%s/sub", da);
	snprintf(dsub2, sizeof(dsub2), "%s/sub2", da);
	CHECK_OK(mkdir(top, 0755));
	CHECK_OK(mkdir(da, 0755));
	CHECK_OK(mkdir(db, 0755));
	CHECK_OK(mkdir(dc, 0755));
	test_types(&g);
	if (g > 0)
		test_peers(g);
	guest_as_nobody(unprivileged, da);
	umount2(db, MNT_DETACH);
	umount2(da, MNT_DETACH);
	rmdir(da);
	rmdir(db);
	rmdir(dc);
	rmdir(top);
	return guest_done();
}

/*
 * /sys/devices/system/cpu as Linux has it: a cpuN directory for each
 * present CPU, an online file in each but the boot CPU's (x86 cannot
 * take CPU 0 offline), and the online, possible and present lists.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>

#include "int_common.h"

#define CPU_DIR "/sys/devices/system/cpu"

/* The number of CPUs in a list file such as "0-3,5\n", or -1. */
static int
list_count(const char *name)
{
	char path[128], buf[256], *s = buf;
	int fd, n = 0;
	long len;

	snprintf(path, sizeof(path), CPU_DIR "/%s", name);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	while (*s >= '0' && *s <= '9') {
		long a = strtol(s, &s, 10), b = a;

		if (*s == '-')
			b = strtol(s + 1, &s, 10);
		n += (int)(b - a + 1);
		if (*s == ',')
			s++;
	}
	return n;
}

int
main(int argc, char **argv)
{
	int r;

	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return r;
	int present = list_count("present"), ncpudirs = 0;
	struct dirent *de;
	DIR *d;

	CHECK(present >= 1, "present lists CPUs");
	CHECK(list_count("online") >= 1, "online lists CPUs");
	CHECK_EQ(list_count("possible") >= present, 1);
	if (!CHECK((d = opendir(CPU_DIR)) != NULL, "opendir " CPU_DIR))
		return guest_done();
	while ((de = readdir(d)) != NULL) {
		char path[300], c;
		int fd, cpu;

		if (strncmp(de->d_name, "cpu", 3) != 0 ||
		    de->d_name[3] < '0' || de->d_name[3] > '9')
			continue;
		ncpudirs++;
		cpu = atoi(de->d_name + 3);
		CHECK(de->d_type == DT_DIR || de->d_type == DT_UNKNOWN,
		    "%s is a directory", de->d_name);
		snprintf(path, sizeof(path), CPU_DIR "/%s/online", de->d_name);
		fd = open(path, O_RDONLY);
		if (cpu == 0) {
			CHECK(fd < 0 && errno == ENOENT, "%s: absent", path);
		} else if (CHECK(fd >= 0, "open %s", path)) {
			CHECK(read(fd, &c, 1) == 1 && (c == '1' || c == '0'),
			    "%s holds 0 or 1", path);
			close(fd);
		}
	}
	closedir(d);
	CHECK_EQ(ncpudirs, present);
	CHECK_ERR(open(CPU_DIR "/cpu99999", O_RDONLY), ENOENT);
	CHECK_ERR(open(CPU_DIR "/cpu00", O_RDONLY), ENOENT);
	return guest_done();
}

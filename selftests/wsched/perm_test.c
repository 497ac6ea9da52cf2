// SPDX-License-Identifier: GPL-2.0
/*
 * perm_test: who may use /dev/wsched once udev/60-wsched.rules applies
 * (GROUP="wsched", MODE="0660").  Runs as root and checks from forked
 * children that dropped to unprivileged users: a member of the device's
 * group opens it, probes it and runs a graph; a non-member gets EACCES.
 *
 * The device must already carry the rule's group and mode (udev on a real
 * system; the rig's /init in QEMU, which has no udevd); otherwise the
 * tests are skipped.  $WSCHED_PERM_CMD, if set, is a command (run by
 * /bin/sh) that a member runs and that must succeed, e.g. a wsctl graph.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/wsched.h>

#include "kselftest_harness.h"

#define DEV_PATH	"/dev/wsched"
/* Unprivileged ids no other test uses. */
#define MEMBER_UID	4243
#define OUTSIDER_UID	4244

/* The device's group if the rule's effect is there, else -1. */
static gid_t dev_group(void)
{
	struct stat st;

	if (stat(DEV_PATH, &st) || !S_ISCHR(st.st_mode) ||
	    (st.st_mode & 07777) != 0660 || st.st_gid == 0)
		return (gid_t)-1;
	return st.st_gid;
}

/* Become @uid with primary group @uid and, if @member, also group @gid. */
static int drop_to(uid_t uid, gid_t gid, int member)
{
	if (setgroups(member ? 1 : 0, &gid) || setgid(uid) || setuid(uid))
		return -1;
	/* No way back: the drop must be real. */
	if (!setuid(0) || geteuid() != uid)
		return -1;
	return 0;
}

/*
 * In a child dropped to @uid: open the device; return 0 and probe it if
 * that worked, else the errno of open(), or 255 if the drop failed.
 */
static int child_open(uid_t uid, gid_t gid, int member)
{
	struct wsched_probe probe = { .size = sizeof(probe) };
	pid_t pid;
	int status, fd;

	pid = fork();
	if (pid < 0)
		return 254;
	if (!pid) {
		if (drop_to(uid, gid, member))
			_exit(255);
		fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(errno & 0xff);
		if (ioctl(fd, WSCHED_IOC_PROBE, &probe) || !probe.nr_workers)
			_exit(253);
		close(fd);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 252;
	return WEXITSTATUS(status);
}

TEST(member_opens_and_probes)
{
	gid_t gid = dev_group();

	if (gid == (gid_t)-1)
		SKIP(return, DEV_PATH " is not 0660 with a group (udev rule not applied)");
	ASSERT_EQ(0, child_open(MEMBER_UID, gid, 1))
		TH_LOG("a member of group %u could not open and probe " DEV_PATH,
		       (unsigned int)gid);
}

TEST(outsider_gets_eacces)
{
	gid_t gid = dev_group();

	if (gid == (gid_t)-1)
		SKIP(return, DEV_PATH " is not 0660 with a group (udev rule not applied)");
	ASSERT_EQ(EACCES, child_open(OUTSIDER_UID, gid, 0))
		TH_LOG("a user outside group %u opened " DEV_PATH " or failed otherwise",
		       (unsigned int)gid);
}

TEST(member_runs_command)
{
	const char *cmd = getenv("WSCHED_PERM_CMD");
	gid_t gid = dev_group();
	int status;
	pid_t pid;

	if (gid == (gid_t)-1)
		SKIP(return, DEV_PATH " is not 0660 with a group (udev rule not applied)");
	if (!cmd)
		SKIP(return, "WSCHED_PERM_CMD not set");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (drop_to(MEMBER_UID, gid, 1))
			_exit(255);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("as a member: %s", cmd);
}

TEST_HARNESS_MAIN

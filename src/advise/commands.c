// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The paths a suggestion may write (the one allow-list: advise names no other,
 * and src/act/apply.c writes no other) and the shell text of its commands.
 * Pure text: no I/O.
 */
#include "advise_int.h"

bool advise_ethtool_path(const char *path, char *ret_ifname, size_t size)
{
	size_t lp = strlen(ADV_ETHTOOL_PREFIX), ls = strlen(ADV_ETHTOOL_COMBINED), len, n;
	const char *name;

	if (strncmp(path, ADV_ETHTOOL_PREFIX, lp) != 0)
		return false;
	name = path + lp;
	len = strlen(name);
	if (len <= ls || strcmp(name + len - ls, ADV_ETHTOOL_COMBINED) != 0)
		return false;
	n = len - ls;
	if (n >= IOT_NAME_MAX || !kname_valid(KNAME_IFACE, name, n))
		return false;
	if (ret_ifname) {
		if (size <= n)
			return false;
		memcpy(ret_ifname, name, n);
		ret_ifname[n] = '\0';
	}
	return true;
}

/*
 * The files a suggestion may write, whole paths (a prefix such as
 * "sys/block/" would admit sys/block/sda/device/delete, "sys/class/net/"
 * .../device/remove): '#' is 1 to 10 digits, '@' an interface name, '%' a
 * block device's name under /sys/block ('!' for '/'), each as kname_valid()
 * takes it.
 */
static const char *const writable[] = {
	"proc/irq/#/smp_affinity_list",		"proc/sys/net/core/rps_sock_flow_entries",
	"sys/class/net/@/queues/rx-#/rps_cpus", "sys/class/net/@/queues/rx-#/rps_flow_cnt",
	"sys/block/%/queue/scheduler",		"sys/block/%/queue/nr_requests",
	"sys/block/%/queue/read_ahead_kb",	"sys/block/%/queue/iostats",
	"sys/block/%/queue/rq_affinity",
};

static bool path_match(const char *pat, const char *p)
{
	for (; *pat; pat++) {
		size_t n = 0;

		if (*pat == '#') {
			while (p[n] >= '0' && p[n] <= '9')
				n++;
			if (n == 0 || n > 10)
				return false;
		} else if (*pat == '@' || *pat == '%') {
			n = strcspn(p, "/");
			if (!kname_valid(*pat == '@' ? KNAME_IFACE : KNAME_DISK, p, n))
				return false;
		} else if (*p == *pat) {
			n = 1;
		} else {
			return false;
		}
		p += n;
	}
	return *p == '\0';
}

bool advise_path_allowed(const char *p)
{
	/* not a file: a NIC's combined channel count, set through netlink */
	if (strncmp(p, ADV_ETHTOOL_PREFIX, strlen(ADV_ETHTOOL_PREFIX)) == 0)
		return advise_ethtool_path(p, NULL, 0);
	for (size_t i = 0; i < sizeof(writable) / sizeof(writable[0]); i++)
		if (path_match(writable[i], p))
			return true;
	return false;
}

/*
 * The path of a file under a device's /sys directory into buf[size]:
 * dir + the name's sysfs form (kname_sysfs(): cciss/c0d0 is cciss!c0d0) +
 * file. False, buf unusable, when the name is not one the kernel gives (a
 * recorded "../../../../tmp/X/pwn") or the path is not one
 * advise_path_allowed() takes: such a name gets no command.
 */
bool device_path(char *buf, size_t size, const char *dir, enum kname_kind kind, const char *name,
		 const char *file)
{
	char sname[IOT_NAME_MAX];
	int n;

	if (kname_sysfs(kind, name, sname, sizeof(sname)) < 0)
		return false;
	n = snprintf(buf, size, "%s%s%s", dir, sname, file);
	return n > 0 && (size_t)n < size && n < ADV_PATH_MAX && advise_path_allowed(buf);
}

void advise_command_text(const char *path, const char *v, struct strbuf *sb)
{
	char ifname[IOT_NAME_MAX], host_path[ADV_PATH_MAX + 1];

	if (advise_ethtool_path(path, ifname, sizeof(ifname))) {
		sb_puts(sb, "ethtool -L ");
		text_shell_word(sb, ifname);
		sb_puts(sb, " combined ");
		text_shell_word(sb, v);
		return;
	}

	/* the one builder of commands refuses what apply refuses: a path is
	 * never printed for pasting unless it is a setting iotriage writes */
	if (!advise_path_allowed(path)) {
		sb_puts(sb, "# refused: not a file iotriage writes");
		return;
	}
	/* an empty cpulist cannot be written back: the kernel rejects it; a
	 * recorded empty value is only possible for masks, printed as 0 */
	sb_puts(sb, "echo ");
	text_shell_word(sb, *v ? v : "0");
	sb_puts(sb, " > ");
	snprintf(host_path, sizeof(host_path), "/%s", path);
	text_shell_word(sb, host_path);
}

void advise_command(const struct advise_action *a, bool undo, struct strbuf *sb)
{
	advise_command_text(a->path, undo ? a->undo : a->value, sb);
}

void advise_commands(const struct suggestion *s, bool undo, struct strbuf *sb)
{
	for (size_t i = 0; i < s->nactions; i++) {
		size_t k = undo ? s->nactions - 1 - i : i;

		advise_command(&s->actions[k], undo, sb);
		sb_putc(sb, '\n');
	}
}

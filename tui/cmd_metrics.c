// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriage metrics: the Prometheus exposition iotriaged serves on
 * --metrics-listen, measured here over one interval and printed once, or
 * written atomically (a temporary file in the same directory, renamed over
 * PATH) for node_exporter's textfile collector. The same sampler and the
 * same renderer as the daemon: no second implementation.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "encode_openmetrics.h"
#include "treewrite.h"
#include "sampler.h"

static const char metrics_usage[] =
    "Usage: iotriage metrics [--interval MS] [--root DIR] [--openmetrics]\n"
    "                        [--device-exclude REGEX] [--textfile PATH]\n"
    "Measure one interval (default 1000 ms) and print the Prometheus exposition\n"
    "iotriaged serves on /metrics (doc/prometheus.md).\n"
    "  --openmetrics    OpenMetrics 1.0 instead of the text format 0.0.4\n"
    "  --device-exclude REGEX  disks left out (default\n"
    "                   '" OM_DEVICE_EXCLUDE_DEFAULT "', as node_exporter; '': none)\n"
    "  --top-irqs N     no effect (every IRQ line has its counter)\n"
    "  --textfile PATH  write PATH atomically (temporary file + rename in its\n"
    "                   directory), for node_exporter's textfile collector; name\n"
    "                   it *.prom\n";

/*
 * The directory of PATH (path up to its last '/', n bytes), walked from "/"
 * or "." one component at a time without following a symbolic link: the
 * textfile collector's directory is often the exporter's own, under its
 * home (/var/lib/prometheus), and whoever owns a directory on the way could
 * swap the next one for a link to /etc/logrotate.d. "" and "." steps are
 * skipped; ".." is -EINVAL. An fd or -errno, with *what set.
 */
static int textfile_dir(const char *path, size_t n, const char **what)
{
	char rel[4096];
	size_t o = 0;
	int start, dfd;

	for (size_t i = 0; i < n;) {
		size_t len;

		while (i < n && path[i] == '/')
			i++;
		for (len = 0; i + len < n && path[i + len] != '/'; len++)
			;
		if (!len || (len == 1 && path[i] == '.')) {
			i += len;
			continue;
		}
		if (o + len + 2 > sizeof(rel)) {
			*what = "directory";
			return -ENAMETOOLONG;
		}
		if (o)
			rel[o++] = '/';
		memcpy(rel + o, path + i, len);
		o += len;
		i += len;
	}
	rel[o] = '\0';
	start = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (start < 0) {
		*what = "directory";
		return -errno;
	}
	dfd = treewrite_open_dir(start, rel, 0);
	close(start);
	if (dfd == -ELOOP || dfd == -ENOTDIR)
		*what = "directory (a symbolic link on the way, which is not followed: name "
			"the real directory, realpath; or not a directory)";
	else if (dfd == -EINVAL)
		*what = "directory (no \"..\" in its path: name it directly)";
	else if (dfd < 0)
		*what = "directory";
	return dfd;
}

/*
 * PATH replaced in one rename: a scraper reads the old file or the new one,
 * never half of one. The temporary name starts with a dot and does not end
 * in .prom, so the textfile collector never reads it. 0 or -errno, with
 * *what naming the step that failed.
 */
static int write_atomic(const char *path, const char *buf, size_t len, const char **what)
{
	char tmpname[300];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dfd, fd = -1, r;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		*what = "not a file name";
		return -EINVAL;
	}
	dfd = textfile_dir(path, slash ? (size_t)(slash - path) : 0, what);
	if (dfd < 0)
		return dfd;
	snprintf(tmpname, sizeof(tmpname), ".%.200s.tmp-%ld-%ld", base, (long)getpid(),
		 (long)time(NULL));
	fd = openat(dfd, tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		*what = "create temporary file";
		r = -errno;
		goto out;
	}
	r = treewrite_write_all(fd, buf, len);
	if (r < 0) {
		*what = "write";
		goto out;
	}
	/* the umask may have narrowed it: the collector runs as another user */
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
		*what = "fsync";
		r = -errno;
		goto out;
	}
	if (renameat(dfd, tmpname, dfd, base) < 0) {
		*what = "rename";
		r = -errno;
		goto out;
	}
	r = 0;
out:
	if (fd >= 0) {
		close(fd);
		if (r < 0)
			unlinkat(dfd, tmpname, 0);
	}
	close(dfd);
	return r;
}

enum { OPT_OM = CLI_OPT_NEXT, OPT_TOP, OPT_TEXTFILE, OPT_EXCLUDE };

struct metrics_args {
	struct cli_opts c; /* --interval, --root */
	struct om_opts o;
	const char *textfile, *exclude;
};

/* The options into *a: 0, 1 after --help (printed), or -EXIT_USAGE (said). */
static int metrics_parse(int argc, char **argv, struct metrics_args *a)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "openmetrics", no_argument, NULL, OPT_OM },
		{ "top-irqs", required_argument, NULL, OPT_TOP },
		{ "device-exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long top;
	char *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":i:h", opts, &a->c)) != -1) {
		switch (c) {
		case OPT_OM:
			a->o.format = OM_OPENMETRICS;
			break;
		case OPT_TOP:
			/* accepted for old scripts: every IRQ line has its counter */
			errno = 0;
			top = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || top < 1 || top > OM_TOP_IRQS_MAX) {
				cli_error("--top-irqs", "'%s' is not a number from 1 to %d", optarg,
					  OM_TOP_IRQS_MAX);
				return -EXIT_USAGE;
			}
			break;
		case OPT_TEXTFILE:
			a->textfile = optarg;
			break;
		case OPT_EXCLUDE:
			a->exclude = optarg;
			break;
		default: /* -h, a missing value, an unknown option */
			return cli_opt_usage(c, argv, metrics_usage);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s", metrics_usage);
		return -EXIT_USAGE;
	}
	if (a->textfile && a->o.format == OM_OPENMETRICS) {
		cli_error("--textfile", "node_exporter's textfile collector reads the text format "
					"0.0.4 only: no --openmetrics with it");
		return -EXIT_USAGE;
	}
	return 0;
}

/* The exposition in sb to --textfile, else stdout: an exit code. */
static int metrics_write(const char *textfile, const struct strbuf *sb)
{
	const char *what = NULL;
	int r;

	if (!textfile) {
		fwrite(sb->buf, 1, sb->len, stdout);
		return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
	}
	r = write_atomic(textfile, sb->buf, sb->len, &what);
	if (r < 0) {
		cli_error(textfile, "%s: %s", what, strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_metrics(int argc, char **argv)
{
	struct metrics_args a = {
		.c = { .interval_ms = 1000 },
		.exclude = OM_DEVICE_EXCLUDE_DEFAULT,
	};
	struct sampler_opts so = { .advise = true };
	regex_t *exclude_re = NULL;
	struct sampler *s = NULL;
	struct strbuf sb = { 0 };
	int r, ret = EXIT_FAIL;

	r = metrics_parse(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	r = om_exclude_compile(a.exclude, &exclude_re);
	if (r < 0) {
		cli_error("--device-exclude", "'%s': %s", a.exclude,
			  r == -EINVAL ? "not a POSIX extended regular expression" : strerror(-r));
		return r == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	a.o.device_exclude = exclude_re;
	so.root = a.c.root;
	r = sampler_open(&so, &s);
	if (r < 0) {
		cli_error(so.root ? so.root : "/", "%s", strerror(-r));
		om_exclude_free(exclude_re);
		return EXIT_FAIL;
	}
	r = sampler_tick(s);
	if (r >= 0) {
		cli_sleep_ms(a.c.interval_ms);
		r = sampler_tick(s);
	}
	if (r < 0) {
		cli_error("sample", "%s", strerror(-r));
		goto out;
	}
	report_sources(sampler_current(s), NULL);
	r = om_render(&sb, sampler_current(s), sampler_metrics(s), sampler_advice(s), &a.o);
	if (r < 0) {
		cli_error("render", "%s", strerror(-r));
		goto out;
	}
	ret = metrics_write(a.textfile, &sb);
out:
	sb_free(&sb);
	sampler_close(s);
	om_exclude_free(exclude_re);
	return ret;
}

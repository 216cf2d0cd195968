// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriage bench: fio's options in, the safety checks, the target, the
 * optional precondition pass, one run or a queue-depth sweep, the target's
 * /proc/diskstats delta, and fio-style output, run in a child process so
 * that a stop on a device that does not answer ends in bounded time
 * (bench_supervise). Owns its exit code.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_progress.h"
#include "bench_report.h"
#include "cli.h"
#include "clock.h"
#include "fioopts.h"
#include "job.h"
#include "diskstats.h"
#include "procfile.h"
#include "root.h"
#include "runs.h"
#include "safety.h"
#include "target.h"

static const char bench_usage[] =
    "Usage: iotriage bench --filename=PATH [fio options] [iotriage options]\n"
    "Generate IO load as fio does and report fio's numbers (fio's option names and values).\n"
    "\n"
    "fio options:\n"
    "  --name=NAME  --filename=PATH  --ioengine=io_uring|libaio|psync\n"
    "  --rw=read|write|randread|randwrite|rw|randrw  --rwmixread=PCT  --bs=4k\n"
    "  --iodepth=N  --numjobs=N  --size=BYTES|PCT%  --offset=BYTES|PCT%\n"
    "  --runtime=TIME  --time_based  --ramp_time=TIME  --direct=0|1  --fsync=N\n"
    "  --rate_iops=N  --group_reporting  --output-format=normal|json  --thread\n"
    "  io_uring: --sqthread_poll  --hipri  --fixedbufs=0|1  --registerfiles=0|1\n"
    "  (registered file and buffers are on unless set to 0)\n"
    "iotriage options:\n"
    "  --sweep-iodepth=1,2,4,8,16,32   one run per depth, table and knee\n"
    "  --expect-iops=N  --expect-mbps=N  measured fraction of what should be there\n"
    "  --cloud-disk=TIER,SIZE_GB       tier common|high|gpssd (also sata|sas|ssd)\n"
    "  --precondition                  one sequential 1MiB write pass first\n"
    "  --allow-destroy=/dev/X          write to X although it has partitions,\n"
    "                                  holders or a signature (never if mounted/swap)\n"
    "  --overwrite                     write over an existing non-empty file\n"
    "  --keep                          keep a file the bench created\n"
    "\n"
    "Other fio options are refused by name. Exit: 0 ok, 1 failure/refused, 2 usage.\n";

/*
 * How long a stopped bench may take to end: the daemon's worker.stop bound
 * (WORKER_STOP_DEADLINE_MS). A healthy device ends the run within one IO.
 */
#define BENCH_STOP_DEADLINE_MS 5000

/* Set by SIGINT/SIGTERM: the run stops, reports what it measured, and cleans up. */
static struct job_control *bench_ctl;

static void bench_on_signal(int sig)
{
	(void)sig;
	if (bench_ctl)
		atomic_store(&bench_ctl->stop, true);
}

/* The target's device row in /proc/diskstats (the device itself, or the one a file lives on). */
struct disk_probe {
	bool have;
	bool root_ok;
	uint32_t major, minor;
	struct root root;
	struct procfile pf;
	struct disk_table t0, t1;
	int64_t t0_ns, t1_ns;
};

/* fd: the target (a file the bench created has no name to stat) */
static void disk_probe_init(struct disk_probe *p, int fd)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (fstat(fd, &st) < 0)
		return;
	if (S_ISBLK(st.st_mode)) {
		p->major = major(st.st_rdev);
		p->minor = minor(st.st_rdev);
	} else {
		p->major = major(st.st_dev);
		p->minor = minor(st.st_dev);
	}
	if (root_open("/", &p->root) < 0)
		return;
	p->root_ok = true;
	procfile_init(&p->pf, "proc/diskstats");
	p->have = true;
}

static void disk_probe_read(struct disk_probe *p, struct disk_table *t, int64_t *ret_ns)
{
	if (!p->have)
		return;
	*ret_ns = clock_ns(CLOCK_MONOTONIC);
	if (procfile_read(&p->pf, &p->root) < 0 ||
	    diskstats_parse(p->pf.buf, p->pf.len, t, NULL) < 0)
		p->have = false;
}

static void disk_probe_rows(struct disk_probe *p, const struct disk_raw **a,
			    const struct disk_raw **b)
{
	*a = *b = NULL;
	if (!p->have)
		return;
	*a = disk_table_find(&p->t0, p->major, p->minor, NULL);
	*b = disk_table_find(&p->t1, p->major, p->minor, NULL);
	if (!*a || !*b)
		*a = *b = NULL;
}

static void disk_probe_free(struct disk_probe *p)
{
	if (!p->root_ok)
		return;
	procfile_free(&p->pf);
	disk_table_free(&p->t0);
	disk_table_free(&p->t1);
	root_close(&p->root);
}

/* Reports a thread's failure on stderr; true if there was one. */
static bool report_errors(const struct job_result *r, unsigned n, const char *what)
{
	bool any = false;

	for (unsigned i = 0; i < n; i++)
		if (r[i].error) {
			cli_error(what, "%s: %s", r[i].error_what, strerror(-r[i].error));
			any = true;
			break;
		}
	return any;
}

static void emit(struct strbuf *sb)
{
	if (sb->err) {
		cli_error("bench", "format the report: %s", strerror(-sb->err));
		return;
	}
	fwrite(sb->buf, 1, sb->len, stdout);
	fflush(stdout);
}

struct sweep_arg {
	const struct job_spec *spec;
	const struct job_target *t;
	struct bench_progress *prog;
};

static void sweep_point(void *arg, unsigned k, unsigned iodepth)
{
	const struct sweep_arg *a = arg;
	struct job_spec s = *a->spec;

	s.iodepth = iodepth;
	bench_progress_hold(a->prog);
	if (s.output == OUTPUT_NORMAL)
		fprintf(stderr, "iotriage: bench: iodepth=%u ...\n", iodepth);
	bench_progress_phase(a->prog, &s, a->t, false, k, s.nsweep);
	bench_progress_release(a->prog);
}

static int run_sweep(const struct job_spec *spec, const struct job_target *t,
		     struct job_control *ctl, const struct job_result *pre,
		     struct bench_progress **prog, bool *ret_failed)
{
	struct sweep_arg arg = { .spec = spec, .t = t, .prog = *prog };
	struct job_result *pts;
	struct strbuf sb = { 0 };
	struct bench_sweep sw;
	unsigned n = 0;
	int r;

	pts = calloc(spec->nsweep, sizeof(*pts));
	if (!pts)
		return -ENOMEM;
	r = job_sweep(spec, t, ctl, pts, &n, sweep_point, &arg);
	/* the result replaces the status line */
	bench_progress_stop(*prog);
	*prog = NULL;
	if (n && report_errors(&pts[n - 1], 1, "bench"))
		*ret_failed = true;
	if (r >= 0) {
		sw = (struct bench_sweep){ .spec = spec,
					   .target = t,
					   .points = pts,
					   .npoints = n,
					   .time_real_ns = clock_ns(CLOCK_REALTIME),
					   .precondition = pre };
		if (spec->output == OUTPUT_JSON)
			bench_sweep_json(&sb, &sw);
		else
			bench_sweep_text(&sb, &sw);
		emit(&sb);
		sb_free(&sb);
	}
	for (unsigned i = 0; i < n; i++)
		job_result_free(&pts[i]);
	free(pts);
	return r;
}

static int run_single(const struct job_spec *spec, const struct job_target *t,
		      struct job_control *ctl, const struct job_result *pre,
		      struct bench_progress **prog, bool *ret_failed)
{
	struct job_result *rs, merged;
	struct disk_probe dp;
	struct strbuf sb = { 0 };
	struct bench_report rep = { 0 };
	int r;

	disk_probe_init(&dp, t->fd);
	disk_probe_read(&dp, &dp.t0, &dp.t0_ns);
	bench_progress_phase(*prog, spec, t, false, 0, 0);
	r = job_run(spec, t, ctl, &rs);
	/* the result replaces the status line */
	bench_progress_stop(*prog);
	*prog = NULL;
	if (r < 0) {
		disk_probe_free(&dp);
		return r;
	}
	disk_probe_read(&dp, &dp.t1, &dp.t1_ns);
	*ret_failed = report_errors(rs, spec->numjobs, "bench");
	rep.spec = spec;
	rep.target = t;
	rep.time_real_ns = clock_ns(CLOCK_REALTIME);
	rep.precondition = pre;
	disk_probe_rows(&dp, &rep.disk_before, &rep.disk_after);
	rep.disk_elapsed_ns = (uint64_t)(dp.t1_ns - dp.t0_ns);
	if (spec->group_reporting && spec->numjobs > 1) {
		r = job_results_merge(rs, spec->numjobs, &merged);
		if (r < 0)
			goto out;
		rep.results = &merged;
		rep.nresults = 1;
	} else {
		rep.results = rs;
		rep.nresults = spec->numjobs;
	}
	if (spec->output == OUTPUT_JSON)
		bench_report_json(&sb, &rep);
	else
		bench_report_text(&sb, &rep);
	emit(&sb);
	sb_free(&sb);
	if (rep.results == &merged)
		job_result_free(&merged);
out:
	job_results_free(rs, spec->numjobs);
	disk_probe_free(&dp);
	return r;
}

/*
 * Everything after the options, in the child bench_supervise made: the
 * safety checks, the target, the run, the report. ctl is shared with the
 * parent (its inflight count is what a stop that does not end waits for).
 * Returns the exit code.
 */
static int bench_run(struct job_spec *spec, struct job_control *ctl)
{
	struct safety_request req;
	struct safety_verdict v;
	struct job_result pre;
	struct target tg;
	struct root root;
	struct sigaction sa;
	struct bench_progress *prog = NULL;
	char why[SAFETY_WHY_MAX];
	bool write, failed = false, have_pre = false;
	int r, ret = EXIT_FAIL;

	write = job_rw_writes(spec->rw) || spec->precondition;
	r = root_open("/", &root);
	if (r < 0) {
		cli_error("/", "%s", strerror(-r));
		return EXIT_FAIL;
	}
	req = (struct safety_request){ .target = spec->filename,
				       .write = write,
				       .allow_destroy =
					   spec->allow_destroy[0] ? spec->allow_destroy : NULL,
				       .overwrite = spec->overwrite };
	r = safety_check(&root, &req, &v, why, sizeof(why));
	root_close(&root);
	if (r < 0) {
		cli_error(spec->filename, "refused: %s", why);
		return EXIT_FAIL;
	}
	r = target_open(spec, &v, write, &tg, why, sizeof(why));
	if (r < 0) {
		cli_error(spec->filename, "%s", why);
		return EXIT_FAIL;
	}

	bench_ctl = ctl;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bench_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* no status line is no reason to fail the run */
	(void)bench_progress_start(spec, ctl, &prog);

	if (spec->precondition) {
		if (spec->output == OUTPUT_NORMAL)
			fprintf(stderr, "iotriage: bench: preconditioning %s ...\n", tg.t.path);
		bench_progress_phase(prog, spec, &tg.t, true, 0, 0);
		r = job_precondition(spec, &tg.t, ctl, &pre);
		bench_progress_hold(prog);
		if (r < 0) {
			cli_error("precondition", "%s", strerror(-r));
			goto out;
		}
		have_pre = true;
		if (report_errors(&pre, 1, "precondition"))
			goto out;
		bench_progress_release(prog);
	}
	if (spec->nsweep)
		r = run_sweep(spec, &tg.t, ctl, have_pre ? &pre : NULL, &prog, &failed);
	else
		r = run_single(spec, &tg.t, ctl, have_pre ? &pre : NULL, &prog, &failed);
	if (r < 0)
		cli_error("bench", "%s", strerror(-r));
	else if (atomic_load(&ctl->stop))
		cli_error("bench", "interrupted: the results cover the time until the signal");
	else if (!failed)
		ret = EXIT_OK;
out:
	bench_progress_stop(prog);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	bench_ctl = NULL;
	if (have_pre)
		job_result_free(&pre);
	if (target_close(&tg, why, sizeof(why)) < 0) {
		cli_error(spec->filename, "%s", why);
		ret = EXIT_FAIL;
	}
	return ret;
}

/* The child: stops as on SIGTERM if the parent goes (killed, or its terminal hung up). */
static int bench_child(struct job_spec *spec, struct job_control *ctl, pid_t parent,
		       const sigset_t *mask)
{
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	sigprocmask(SIG_SETMASK, mask, NULL);
	if (getppid() != parent) /* gone before the prctl */
		return EXIT_FAIL;
	ret = bench_run(spec, ctl);
	fflush(stdout);
	fflush(stderr);
	return ret;
}

/*
 * The bench runs in a child process; this one waits for it and passes
 * SIGINT and SIGTERM on. The child stops its IO (cancelled where the
 * engine can) and reports what it measured. A device that stopped
 * answering keeps a thread of the child in the kernel, where no signal
 * reaches it and no join ends: BENCH_STOP_DEADLINE_MS after the first
 * signal the child is killed (it dies when its IO ends, holding its
 * claims on the device until then) and this process exits 1 saying so,
 * so the terminal comes back in bounded time.
 */
static int bench_supervise(struct job_spec *spec)
{
	struct job_control *ctl;
	sigset_t set, old;
	int64_t deadline_ns = 0;
	unsigned long long out;
	pid_t pid, parent = getpid();

	/* MAP_SHARED: the child's counters and stop flag (lock-free atomics) seen from here */
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED) {
		cli_error("bench", "mmap: %s", strerror(errno));
		return EXIT_FAIL;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		cli_error("bench", "fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return EXIT_FAIL;
	}
	if (pid == 0)
		_exit(bench_child(spec, ctl, parent, &old));
	for (;;) {
		struct timespec ts, *tsp = NULL;
		siginfo_t si;
		int sig, status;

		if (deadline_ns) {
			int64_t left = deadline_ns - clock_ns(CLOCK_MONOTONIC);

			if (left <= 0)
				break;
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			tsp = &ts;
		}
		sig = sigtimedwait(&set, &si, tsp);
		if (sig < 0)
			continue; /* EINTR, or EAGAIN: the deadline, seen at the top */
		if (sig == SIGCHLD) {
			if (waitpid(pid, &status, WNOHANG) != pid)
				continue;
			if (WIFEXITED(status))
				return WEXITSTATUS(status);
			cli_error("bench", "ended by signal %d%s", WTERMSIG(status),
				  deadline_ns ? " before the run began" : "");
			return EXIT_FAIL;
		}
		kill(pid, sig);
		if (!deadline_ns)
			deadline_ns =
			    clock_ns(CLOCK_MONOTONIC) + (int64_t)BENCH_STOP_DEADLINE_MS * 1000000;
	}
	out = (unsigned long long)atomic_load(&ctl->inflight);
	/* killed first: its status line thread draws no more */
	kill(pid, SIGKILL);
	if (spec->output == OUTPUT_NORMAL && isatty(STDOUT_FILENO))
		fputs("\r\033[K", stdout); /* the child's status line, left as it was */
	fflush(stdout);
	cli_error("bench",
		  "did not stop within %d s of the signal: %llu IO%s still outstanding; IO may "
		  "still be in flight on %s, which does not answer; the process that issued it "
		  "(pid %d) is killed and ends, releasing the device, when the device completes it",
		  BENCH_STOP_DEADLINE_MS / 1000, out, out == 1 ? "" : "s", spec->filename,
		  (int)pid);
	return EXIT_FAIL;
}

int cmd_bench(int argc, char **argv)
{
	struct job_spec spec;
	struct fioopts_error perr;
	int r;

	r = fioopts_parse(argc, (const char *const *)argv, 1, &spec, &perr);
	if (r == 1) {
		printf("%s", bench_usage);
		return EXIT_OK;
	}
	if (r < 0) {
		cli_error(perr.option, "%s", perr.message);
		return EXIT_USAGE;
	}
	return bench_supervise(&spec);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live TUI: one loop (ui.c) over the terminal, the data source and a
 * timer; views (view_*.c) draw the model into a rectangle and never read
 * /proc or compute rates; key handlers return UI_* flags and the loop alone
 * decides what to redraw.
 */
#ifndef IOTRIAGE_TUI_UI_H
#define IOTRIAGE_TUI_UI_H

#include <stdbool.h>
#include <ncurses.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "model_irqgroup.h"

struct source;

/* What a handler asks of the loop. */
enum {
	UI_REDRAW = 1,
	UI_QUIT = 2,
	UI_PASS = 4, /* a panel's handler leaves the key to the loop's global keys */
};

enum panel_id { PANEL_DISKS, PANEL_CPUS, PANEL_IRQS, PANEL__COUNT };

/* Colour pairs (ncurses pair numbers); without colour they map to attributes. */
enum ui_pair {
	PAIR_NONE,
	PAIR_HEADER, /* the top line */
	PAIR_TITLE,  /* a panel's title, focused */
	PAIR_WARN,   /* over a threshold */
	PAIR_CRIT,   /* saturated */
	PAIR_HOT,    /* the hot core */
	PAIR_GOOD,   /* connected, user time */
	PAIR_SOFT,   /* softirq share of the load bar */
	PAIR_IRQ,    /* irq share of the load bar */
	PAIR_WAIT,   /* iowait share */
	PAIR_INFO,   /* an "info" finding */
	PAIR__COUNT
};

struct rect {
	int y, x, h, w;
};

/* Per panel: sort, filter, selection and the order of its last draw. */
struct panel {
	int sort;	  /* index into the panel's sort keys */
	char filter[64];  /* substring of the row's name/device, "" none */
	char sel_key[64]; /* the selected row's name: survives re-sorting */
	size_t sel;	  /* its index in order[] at the last draw */
	size_t top;	  /* first row shown */
	size_t *order;	  /* indexes into the model's table, sorted, filtered */
	size_t norder, order_cap;
	int visible; /* data rows that fit at the last draw */
};

enum findings_ask {
	FINDINGS_ASK_NONE,
	FINDINGS_ASK_APPLY, /* "Apply ID? [y/N]" is on the status line */
	FINDINGS_ASK_UNDO,
};

#define FINDINGS_APPLIED_MAX 16

/* The findings panel (view_findings.c): it replaces the tables while open. */
struct findings_panel {
	bool open;
	char sel_key[MODEL_ADV_ID_MAX + 2]; /* "f:ID", "s:ID", "a:ID": survives new samples */
	size_t sel;			    /* row index at the last draw */
	size_t top;			    /* first list row shown */
	int detail_top;			    /* the detail's scroll, in lines */
	enum findings_ask ask;
	char ask_id[MODEL_ADV_ID_MAX];
	char status[800]; /* the last apply/undo result (apply_result.message size) */
	bool status_failed;
	/* suggestions applied from this screen, newest last: kept to show and
	 * undo after the samples stop carrying them */
	struct model_suggestion applied[FINDINGS_APPLIED_MAX];
	size_t napplied;
};

/* A scrolled view's position: the keys move it (draw_scroll_key), the
 * draw keeps it on its lines (draw_scroll_fit). */
struct scroll {
	int top;    /* first line shown */
	int nlines; /* lines at the last draw */
};

/* The processes view (view_procs.c): it replaces the tables while open. */
struct procs_panel {
	bool open;
	struct scroll scroll;
	char filter[64]; /* the processes view's '/': rows whose command, role, user
			  * or unit hold it (any case); "" all */
};

/* The turbostat sources view (view_turbo.c): it replaces the tables while open. */
struct turbo_panel {
	bool open;
	struct scroll scroll; /* of the part under the title and the header */
	int page;	      /* lines of it on screen at the last draw */
};

/* The CPU heat map (view_heat.c) as last laid out and drawn: for the
 * selection keys and mouse clicks. */
struct heat_map {
	bool shown;
	size_t *cpus; /* indexes into model.cpus, CPU number order, no "all" */
	size_t ncpus, cpus_cap;
	int *pkg;     /* each cell's group: NUMA node, else package; -1 unknown */
	bool by_node; /* the groups are NUMA nodes ("n0"), else packages ("p0") */
	size_t pkg_cap;
	size_t *line_start; /* index into cpus of each line's first cell */
	size_t nlines, lines_cap;
	size_t top;	/* first line on screen */
	int alloc;	/* lines the layout gave it at the last draw */
	int y, x, rows; /* where it was drawn */
};

/* The queue chain of a disk or a NIC (view_chain.c): it replaces the
 * tables while open. */
struct chain_panel {
	bool open;
	char disk[64];	      /* the disk row Enter was pressed on */
	char nic[32];	      /* else the NIC line's ("" a disk's chain) */
	struct scroll scroll; /* over its queues */
};

/* The IRQs panel's groups by device (view_irqs.c) and which are expanded. */
#define IRQ_EXPANDED_MAX 16
struct irq_group_state {
	struct model_irq_groups groups; /* of the last ordering */
	char expanded[IRQ_EXPANDED_MAX][32];
	size_t nexpanded;
};

struct ui {
	struct model model;
	struct source *src;
	struct panel panels[PANEL__COUNT];
	enum panel_id focus;
	bool paused;
	bool help;
	struct scroll help_scroll;
	bool editing;	 /* '/' typed: keys go to the filter line */
	bool jumping;	 /* replay's 'b' typed: the edit line is a time to jump to */
	bool edit_procs; /* the edit line is the processes view's filter */
	char edit[64];
	size_t edit_len;
	bool color;
	bool utf8;
	double await_ms; /* r_await/w_await above this are coloured */
	char note[160];	 /* one-off message in the footer */
	int rows, cols;
	const char *root; /* --root: where embedded apply/undo write; NULL "/" */
	struct findings_panel findings;
	struct procs_panel procs;
	struct turbo_panel turbo;
	struct heat_map heat;
	struct irq_group_state irqg;
	struct chain_panel chain;
	struct procs_panel cgroups; /* the cgroups view (view_cgroups.c), as procs */
	/* z: the rows without activity in the interval shown too (iostat
	 * -z's opposite); how many each panel hid at its last ordering: disks
	 * without IO, interrupt lines that did not fire, NICs without traffic */
	bool show_idle;
	size_t disks_hidden, irqs_hidden, nics_hidden;
	/* the IRQs panel's order starts with its NIC lines (Enter: a NIC's
	 * queue chain), this many, then the interrupt lines and groups */
	size_t irqs_nic_rows;
};

/* Options of `iotriage` without a subcommand. */
struct ui_opts {
	const char *socket;	 /* --socket: this daemon only */
	bool embedded;		 /* --embedded: never try a daemon */
	long interval_ms;	 /* --interval, 0 = default */
	const char *root;	 /* --root */
	bool no_color;		 /* --no-color (NO_COLOR does the same) */
	double await_ms;	 /* --await-ms */
	bool trace;		 /* --trace: embedded, with the BPF tracing stage */
	double trace_budget_pct; /* --trace-budget: per probe; < 0 the default */
};

/* `iotriage [OPTIONS]` on a terminal: runs the TUI, returns the exit status. */
int cmd_tui(int argc, char **argv);
/* The live view's panels on a flight recording (iotriage replay on a
 * terminal), starting at the sample at or after at_ns (INT64_MIN: the
 * first), findings recomputed with the topology under root (NULL "/"),
 * each interval step_ns long (0: one sample). Returns an exit code. */
int ui_replay(const char *path, int64_t at_ns, const char *root, int64_t step_ns);

/* One frame of the loop's drawing, as after a new sample (tests/bench/
 * bench_tui.c measures it). */
void ui_draw(struct ui *ui);

/* Attribute for a pair: the colour pair, or bold/reverse when colour is off. */
int ui_attr(const struct ui *ui, enum ui_pair p);

/* base with attr on top; attr's colour pair, if any, replaces base's. */
static inline int ui_mix(int base, int attr)
{
	if (attr & (int)A_COLOR)
		return (base & ~(int)A_COLOR) | attr;
	return base | attr;
}

/* Draw primitives shared by the views (the widgets over them: draw.h).
 * Strings are clipped to the width. */
void ui_put(int y, int x, int w, int attr, const char *s);
void ui_fill(int y, int x, int w, int attr);
/* A number right-aligned in exactly w columns: decimals dropped, then k/M/G. */
void ui_fmt_num(char *buf, size_t size, int w, double v);

/*
 * A view's operations, htop's PanelClass: the loop draws, routes keys and
 * writes the help screen and the footer through these only, never naming a
 * view. A view that replaces the tables while open has an open flag; the parts
 * of the tables' screen (the findings line, the heat map, the three panels,
 * the history strip) have none and are laid out by the loop. NULL members:
 * the view has no such thing.
 */
enum {
	VIEW_WHOLE = 1,	  /* the whole terminal, its last line its own: over every other view */
	VIEW_SUMMARY = 2, /* under the findings line, which stays (the queue chain) */
};

struct view_ops {
	const char *name;
	int keys[4];	/* the keys that open it (0 ends): from the tables, or passed */
	unsigned flags; /* VIEW_* */
	/* where its "open" flag is in struct ui (offsetof), 0: part of the
	 * tables; open: what opening it resets besides */
	size_t open_at;
	void (*open)(struct ui *ui);
	void (*draw)(struct ui *ui, struct rect r);
	/* its keys while open (a panel: while focused); UI_PASS for the loop's */
	unsigned (*on_key)(struct ui *ui, int ch);
	/* lines it takes at width w (0: not shown) */
	int (*lines)(struct ui *ui, int w);
	/* a panel of the tables: sort, filter and order its rows from the
	 * model, keeping the selection on the same row name; its sort keys'
	 * names (NULL-terminated); its row i's name */
	void (*order)(struct ui *ui);
	const char *const *sorts;
	const char *(*row_name)(const struct ui *ui, size_t i);
	/* its keys on the help screen: { keys, what they do }, { NULL } ends */
	const char *const (*help)[2];
	/* its key on the footer; optional ones only where the whole line fits;
	 * footer_fmt: a label that says more (how many findings) */
	const char *footer_key, *footer_label;
	bool footer_optional;
	void (*footer_fmt)(const struct ui *ui, char *buf, size_t size);
	void (*free)(struct ui *ui);
};

/* The help screen over the whole terminal, scrolled to ui->help_scroll (arrows,
 * PgUp/PgDn; any other key closes it) (view_help.c). */
extern const struct view_ops view_help;
/* The findings panel (view_findings.c): findings and suggestions, apply and
 * undo on y (arrows, a, u, y, f/Esc). */
extern const struct view_ops view_findings;
/* The processes view (view_procs.c), the cgroups view (view_cgroups.c): one
 * scrolled text each (arrows, PgUp/PgDn, Home; p, c or Esc close). */
extern const struct view_ops view_procs;
extern const struct view_ops view_cgroups;
/* The turbostat sources view (view_turbo.c): each column's source and
 * detail or why it is unavailable, then the source families (arrows,
 * PgUp/PgDn, Home/End; t/Esc close). */
extern const struct view_ops view_turbo;
/* The queue chain of ui->chain.disk (view_chain.c): each blk-mq hardware
 * queue, its interrupt, the CPU it lands on and that CPU's load (arrows
 * scroll, Enter/Esc close); opened by Enter on a disk. */
extern const struct view_ops view_chain;
/* The findings line under the header (view_summary.c): the worst finding
 * in words, coloured by severity. */
extern const struct view_ops view_summary;
/* The CPU heat map of a big host (view_heat.c), at the top of the CPUs
 * panel: its lines at width w (0: fewer than 64 CPUs) lay it out; drawn
 * scrolled to the selected, else the hot CPU; [ ] and a click select a
 * cell's CPU. */
extern const struct view_ops view_heat;
/* The three panels (view_disks.c, view_cpus.c, view_irqs.c), in enum
 * panel_id order; Enter on a disk opens its queue chain, on an IRQ device
 * group expands or folds it. */
extern const struct view_ops view_disks;
extern const struct view_ops view_cpus;
extern const struct view_ops view_irqs;
/* The sparkline of the focused panel's selected row (view_history.c). */
extern const struct view_ops view_history;

/* Every view, in the order of the help screen and the footer; NULL ends. */
extern const struct view_ops *const ui_views[];
/* The loop's own keys on the help screen, after help's own; { NULL } ends. */
extern const char *const ui_keys_help[][2];
extern const char *const ui_time_keys_help[][2];
/* Opens v (closing the view open, unless v is VIEW_WHOLE); UI_REDRAW. */
unsigned ui_open(struct ui *ui, const struct view_ops *v);

/* The findings panel's operations (view_findings, view_findings.c), and
 * its line for the status line (the question, else the last result), NULL
 * when it has none. */
void view_findings_draw(struct ui *ui, struct rect r);
unsigned view_findings_key(struct ui *ui, int ch);
/* 'a' on the tables: the findings panel on the headline's fix (the
 * suggestion answering the first finding), asking y/N; on the finding
 * when there is none. */
unsigned view_findings_fix(struct ui *ui);
const char *view_findings_status(const struct ui *ui, int *ret_attr);
void view_findings_free(struct ui *ui);
/* Whether ch is one of the loop's global keys (quit, help, pause, interval,
 * redraw) that a view over the tables leaves to the loop (UI_PASS). */
bool ui_key_is_global(int ch);
/* Whether ch moves a selection, and how: Up/k and Down/j a row, PgUp/PgDn
 * a page, Home/g and End/G to the first or last (*ret_to_end, *ret_delta's
 * sign the direction). */
bool ui_key_move(int ch, int page, int *ret_delta, bool *ret_to_end);
/* Whether ch is a time key (< > , . b i n; replay's t T too), which the
 * findings panel leaves to the loop: the findings follow the time. */
bool ui_key_is_time(const struct ui *ui, int ch);
/* The header's turbostat and PSI/writeback lines from row y, in n lines (1:
 * all on one); returns the lines drawn (view_header.c). */
int view_header_draw(struct ui *ui, int y, int n);
/* The NIC lines at the top of the IRQs panel: how many, and drawn into r
 * (the selected one, "nic NAME" in the IRQs panel, reversed). */
int view_nics_lines(const struct ui *ui);
void view_nics_draw(struct ui *ui, struct rect r);
/* The NICs with a line of their own, in the lines' order, as indexes into
 * the model's nics (at most NIC_LINES_MAX); returns how many. */
#define NIC_LINES_MAX 8 /* NICs with a line of their own; the others share one */
size_t view_nics_pick(const struct ui *ui, size_t own[NIC_LINES_MAX]);

/* After re-ordering: find the selected row's name again, else clamp. */
void view_keep_selection(struct ui *ui, enum panel_id id,
			 const char *(*name_of)(const struct ui *ui, size_t i));

/* The selected row's name in a panel, "" if none; and the series key of it. */
const char *view_selected(const struct ui *ui, enum panel_id id);

#endif

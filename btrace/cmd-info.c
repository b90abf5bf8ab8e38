// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace info: which branch sources work here, why the others do not, and
 * the state of everything that can refuse tracing (one line each, with
 * what to do).
 */
#include <stdio.h>

#include <bts.h>

#include "btrace.h"
#include "options.h"

static const struct command_help info_help = {
	.name = "info",
	.usage = { "[--json]", "[--json] FILE" },
	.summary = "Says which branch sources work on this machine, and for each one\n"
		   "that does not, why; then what can refuse tracing here.  With a\n"
		   "trace FILE: its processes, the programs each ran (its images, one\n"
		   "per exec), their maps and threads.",
	.details = "Output: one line per source, fastest first,\n"
		   "  NAME  available\n"
		   "  NAME  unavailable: WHY\n"
		   "then 'auto  -> NAME', the source 'btrace record' picks by default\n"
		   "('auto  -> none' when no source works), then 'per-cpu  available'\n"
		   "or 'per-cpu  unavailable: WHY' for the module's per-CPU kernel mode\n"
		   "(the kernel and user branches of whole CPUs; CAP_PERFMON or\n"
		   "CAP_SYS_ADMIN), an empty line, and one line per check,\n"
		   "'CHECK  ok: STATE' or 'CHECK  WHAT IS REFUSED: WHAT\n"
		   "TO DO'.  The checks: yama (kernel.yama.ptrace_scope), policy (a\n"
		   "seccomp or container policy blocking ptrace or perf_event_open),\n"
		   "paranoid (kernel.perf_event_paranoid), pti (page-table isolation),\n"
		   "lockdown (kernel lockdown), module (the ptrace_bts module).  A\n"
		   "command refused for one of these reasons prints the same line.\n"
		   "\n"
		   "--json prints one object: {\"sources\": [{\"name\", \"available\",\n"
		   "\"why\"}...], \"auto\": NAME or null, \"per-cpu\": {\"available\",\n"
		   "\"why\"}, \"checks\": [{\"name\", \"ok\",\n"
		   "\"refuses\": [SOURCE...], \"attach_only\", \"line\"}...]}.\n"
		   "\n"
		   "With FILE, the encoding of its records (raw, compact or tnt,\n"
		   "as record --format names them), then one block per process:\n"
		   "  records: compact\n"
		   "  process PID (parent PPID): exited with status N\n"
		   "    image 0: EXE\n"
		   "      0xSTART-0xEND r-x OFFSET PATH build-id HEX\n"
		   "    image 1: EXE2 (exec by thread TID, entry 0xENTRY)\n"
		   "    threads: TID...\n"
		   "(--json: {\"format\", \"processes\": [{\"pid\", \"ppid\", \"exited\", \"status\",\n"
		   "\"images\": [{\"exe\", \"tid\", \"entry\", \"maps\": [{\"start\", \"end\",\n"
		   "\"prot\", \"offset\", \"path\", \"build_id\"}]}], \"threads\"}]}).\n"
		   "\n"
		   "Exit status: 0, 1 when the sources could not be probed or FILE\n"
		   "cannot be read, 2 for a bad command line.\n",
};

#define MAX_SOURCES 16

struct info {
	struct bts_source_info src[MAX_SOURCES];
	int nsrc;
	const char *pick;	/* NULL: none */
	struct bts_percpu_info percpu;
	struct bts_refusal checks[BTS_REFUSAL_MAX];
};

static int gather(struct info *in)
{
	int i;

	in->nsrc = bts_probe_sources(in->src, MAX_SOURCES, sizeof(*in->src));
	if (in->nsrc < 0) {
		error_bts(in->nsrc, "info: cannot probe the branch sources");
		return -1;
	}
	if (in->nsrc > MAX_SOURCES)
		in->nsrc = MAX_SOURCES;
	in->pick = NULL;
	for (i = 0; i < in->nsrc && !in->pick; i++)
		if (in->src[i].available)
			in->pick = bts_source_name(in->src[i].source);
	if (bts_percpu_probe(&in->percpu, sizeof(in->percpu)) < 0) {
		error_bts(-BTS_E_INTERNAL, "info: cannot probe the per-CPU mode");
		return -1;
	}
	for (i = 0; i < BTS_REFUSAL_MAX; i++)
		if (bts_refusal_check(i, &in->checks[i],
				      sizeof(in->checks[i])) < 0) {
			error_bts(-BTS_E_INTERNAL, "info: check %s", bts_refusal_name(i));
			return -1;
		}
	return 0;
}

static void print_text(const struct info *in)
{
	int i;

	for (i = 0; i < in->nsrc; i++) {
		const char *name = bts_source_name(in->src[i].source);

		if (in->src[i].available)
			printf("%-12s available\n", name);
		else
			printf("%-12s unavailable: %s\n", name, in->src[i].why);
	}
	printf("%-12s -> %s\n", "auto", in->pick ? in->pick : "none");
	if (in->percpu.available)
		printf("%-12s available\n\n", "per-cpu");
	else
		printf("%-12s unavailable: %s\n\n", "per-cpu", in->percpu.why);
	for (i = 0; i < BTS_REFUSAL_MAX; i++)
		printf("%-12s %s\n", bts_refusal_name(i), in->checks[i].line);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_refuses(uint32_t sources)
{
	const char *sep = "";

	putchar('[');
	for (int s = 0; s < PTBTS_SOURCE_MAX; s++) {
		if (!(sources & (1u << s)))
			continue;
		printf("%s", sep);
		json_string(bts_source_name(s));
		sep = ", ";
	}
	putchar(']');
}

static void print_json(const struct info *in)
{
	int i;

	printf("{\"sources\": [");
	for (i = 0; i < in->nsrc; i++) {
		printf("%s{\"name\": ", i ? ", " : "");
		json_string(bts_source_name(in->src[i].source));
		printf(", \"available\": %s, \"why\": ",
		       in->src[i].available ? "true" : "false");
		json_string(in->src[i].available ? "" : in->src[i].why);
		putchar('}');
	}
	printf("], \"auto\": ");
	if (in->pick)
		json_string(in->pick);
	else
		printf("null");
	printf(", \"per-cpu\": {\"available\": %s, \"why\": ",
	       in->percpu.available ? "true" : "false");
	json_string(in->percpu.available ? "" : in->percpu.why);
	printf("}, \"checks\": [");
	for (i = 0; i < BTS_REFUSAL_MAX; i++) {
		const struct bts_refusal *r = &in->checks[i];

		printf("%s{\"name\": ", i ? ", " : "");
		json_string(bts_refusal_name(i));
		printf(", \"ok\": %s, \"refuses\": ", r->sources ? "false" : "true");
		json_refuses(r->sources);
		printf(", \"attach_only\": %s, \"line\": ",
		       r->attach_only ? "true" : "false");
		json_string(r->line);
		putchar('}');
	}
	printf("]}\n");
}

int cmd_info(int argc, char **argv)
{
	bool json = false;
	const struct option opts[] = {
		OPT_FLAG(0, "json", &json, "print the same as one JSON object"),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &info_help, opts, 0);
	static struct info in;

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (first == argc - 1)
		return info_trace(argv[first], json);
	if (first < argc) {
		error("info: unexpected argument '%s'", argv[first + 1]);
		return EXIT_USAGE;
	}
	if (gather(&in))
		return EXIT_FAILED;
	if (json)
		print_json(&in);
	else
		print_text(&in);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace info FILE: what a trace file holds besides its records (whose
 * encoding it names): each process with its parent and end, the programs it ran one exec after the
 * other (its images), the maps of each image and its threads.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <bts.h>

#include "btrace.h"
#include "dump.h"

static void prot_text(uint32_t prot, char out[4])
{
	out[0] = prot & PROT_READ ? 'r' : '-';
	out[1] = prot & PROT_WRITE ? 'w' : '-';
	out[2] = prot & PROT_EXEC ? 'x' : '-';
	out[3] = 0;
}

static void build_id_hex(const struct bts_map *m, char *out)
{
	for (uint32_t i = 0; i < m->build_id_len; i++)
		sprintf(out + 2 * i, "%02x", m->build_id[i]);
	out[2 * m->build_id_len] = 0;
}

static void end_text(const struct bts_process_info *pr)
{
	if (!pr->exited)
		fputs("no end recorded", stdout);
	else if (WIFEXITED(pr->status))
		printf("exited with status %d", WEXITSTATUS(pr->status));
	else if (WIFSIGNALED(pr->status))
		printf("killed by signal %d", WTERMSIG(pr->status));
}

static void print_maps_text(const struct bts_image_info *im)
{
	char prot[4], id[2 * BTS_BUILD_ID_MAX + 1];

	for (size_t j = 0; j < im->nmaps; j++) {
		const struct bts_map *m = &im->maps[j];

		prot_text(m->prot, prot);
		build_id_hex(m, id);
		printf("    0x%016" PRIx64 "-0x%016" PRIx64 " %s %08" PRIx64 " %s%s%s\n",
		       m->start, m->end, prot, m->offset,
		       *m->path ? shown(m->path) : "[anonymous]", *id ? " build-id " : "", id);
	}
}

static void print_threads_text(const struct bts_trace *t, pid_t pid)
{
	fputs("  threads:", stdout);
	for (size_t i = 0; i < bts_trace_nthreads(t); i++)
		if (bts_trace_thread(t, i)->pid == pid)
			printf(" %d", (int)bts_trace_thread(t, i)->tid);
	putchar('\n');
}

/* The --format value that writes the encoding of @t's records. */
static const char *format_name(const struct bts_trace *t)
{
	switch (bts_trace_format(t)) {
	case BTS_FORMAT_COMPACT:
		return "compact";
	case BTS_FORMAT_TNT:
		return "tnt";
	default:
		return "raw";
	}
}

static void print_text(const struct bts_trace *t)
{
	printf("records: %s\n", format_name(t));
	for (size_t i = 0; i < bts_trace_nprocesses(t); i++) {
		const struct bts_process_info *pr = bts_trace_process(t, i);

		printf("process %d (parent %d): ", (int)pr->pid, (int)pr->ppid);
		end_text(pr);
		putchar('\n');
		for (size_t k = 0; k < bts_trace_nimages(t, pr->pid); k++) {
			const struct bts_image_info *im = bts_trace_image(t, pr->pid, k);

			printf("  image %zu: %s", k, *im->exe ? shown(im->exe) : "?");
			if (k)
				printf(" (exec by thread %d, entry 0x%" PRIx64 ")",
				       (int)im->tid, im->entry);
			putchar('\n');
			print_maps_text(im);
		}
		print_threads_text(t, pr->pid);
	}
}

static void print_image_json(const struct bts_image_info *im)
{
	char prot[4], id[2 * BTS_BUILD_ID_MAX + 1];

	fputs("{\"exe\":", stdout);
	json_str(im->exe);
	printf(",\"tid\":%d,\"entry\":\"0x%" PRIx64 "\",\"maps\":[", (int)im->tid,
	       im->entry);
	for (size_t j = 0; j < im->nmaps; j++) {
		const struct bts_map *m = &im->maps[j];

		prot_text(m->prot, prot);
		build_id_hex(m, id);
		printf("%s{\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64
		       "\",\"prot\":\"%s\",\"offset\":%" PRIu64 ",\"path\":",
		       j ? "," : "", m->start, m->end, prot, m->offset);
		json_str(m->path);
		printf(",\"build_id\":\"%s\"}", id);
	}
	fputs("]}", stdout);
}

static void print_json(const struct bts_trace *t)
{
	printf("{\"format\":\"%s\",\"processes\":[", format_name(t));
	for (size_t i = 0; i < bts_trace_nprocesses(t); i++) {
		const struct bts_process_info *pr = bts_trace_process(t, i);
		bool first = true;

		printf("%s{\"pid\":%d,\"ppid\":%d,\"exited\":%s", i ? "," : "",
		       (int)pr->pid, (int)pr->ppid, pr->exited ? "true" : "false");
		if (pr->exited)
			printf(",\"status\":%d", pr->status);
		fputs(",\"images\":[", stdout);
		for (size_t k = 0; k < bts_trace_nimages(t, pr->pid); k++) {
			if (k)
				putchar(',');
			print_image_json(bts_trace_image(t, pr->pid, k));
		}
		fputs("],\"threads\":[", stdout);
		for (size_t j = 0; j < bts_trace_nthreads(t); j++) {
			if (bts_trace_thread(t, j)->pid != pr->pid)
				continue;
			printf("%s%d", first ? "" : ",", (int)bts_trace_thread(t, j)->tid);
			first = false;
		}
		fputs("]}", stdout);
	}
	puts("]}");
}

int info_trace(const char *path, bool json)
{
	struct bts_trace *t;
	int ret = open_trace(path, false, &t);

	if (ret < 0) {
		error_bts(ret, "%s", path);
		return EXIT_FAILED;
	}
	if (json)
		print_json(t);
	else
		print_text(t);
	bts_trace_free(t);
	return 0;
}

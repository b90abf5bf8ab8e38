// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: what this module and machine can do, by ioctl and in sysfs.
 *
 * /sys/kernel/ptrace_bts/
 *	abi_version		PTBTS_ABI_VERSION
 *	record_size		bytes per record
 *	pinned_pages		pages pinned by every session together
 *	releases_queued		buffers of exited threads (or of threads
 *				whose tracer exited) whose release is queued
 *				and not yet done: pinned_pages includes them
 *	hw_verified		0: the hardware sources have not yet run on a
 *				CPU with BTS (PTBTS_CAPS_HW_UNVERIFIED)
 *	percpu_reason		why the per-CPU mode cannot record on this
 *				machine ("ok")
 *	percpu_pages		pages of per-CPU buffers the module holds
 *	sources/<name>/available	1 or 0: whether the machine can
 *	sources/<name>/reason	why not, in words ("ok" when available)
 *
 * One value per file, all read-only and readable by everyone, so that no
 * file's content depends on who reads it: the machine's reasons only (the
 * CPU, PTI), never the reader's privilege nor perf's use of the PMU at the
 * moment, which the CAPS ioctl gives its caller.  No show() waits for
 * anything: a reader cannot be made to sleep by what other users do.
 */
#include <linux/kobject.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "hw.h"
#include "percpu.h"
#include "ptbts.h"

static void ptbts_caps_fill(struct ptbts_caps *caps)
{
	u32 src;

	memset(caps, 0, sizeof(*caps));
	caps->size = sizeof(*caps);
	caps->abi_version = PTBTS_ABI_VERSION;
	caps->record_size = sizeof(struct ptbts_record);
	for (src = 0; src < PTBTS_SOURCE_MAX; src++) {
		caps->unavail[src] = ptbts_source_unavail(src);
		if (caps->unavail[src] == PTBTS_OK)
			caps->sources |= 1U << src;
	}
	caps->pebs_format = ptbts_hw_pebs_format();
	caps->pebs_record_size = ptbts_hw_pebs_record_size();
	caps->flags = PTBTS_CAPS_HW_UNVERIFIED;
	caps->percpu_unavail = ptbts_hw_percpu_unavail();
}

/**
 * ptbts_ioctl_caps() - %PTBTS_IOC_CAPS
 * @uarg: a &struct ptbts_caps whose @size the caller set
 *
 * Any process may ask.  The struct is filled up to the caller's size; a
 * larger one has its tail zeroed.
 *
 * Return: 0 or a negative errno.
 */
long ptbts_ioctl_caps(void __user *uarg)
{
	struct ptbts_caps caps;
	u32 usize;
	int err;

	err = ptbts_get_usize(&usize, uarg, PTBTS_CAPS_SIZE_VER0);
	if (err)
		return err;
	ptbts_caps_fill(&caps);
	caps.size = min_t(u32, usize, sizeof(caps));
	return ptbts_copy_out(uarg, usize, &caps, sizeof(caps));
}

/* ------------------------------------------------------------- sysfs */

static ssize_t abi_version_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", PTBTS_ABI_VERSION);
}

static ssize_t record_size_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%zu\n", sizeof(struct ptbts_record));
}

static ssize_t pinned_pages_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", ptbts_pinned_pages());
}

static ssize_t releases_queued_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", ptbts_releases_queued());
}

/* What the machine lets a source do, whoever asks (the uapi's order). */
static u8 ptbts_machine_unavail(u32 source)
{
	switch (source) {
	case PTBTS_SOURCE_KMOD_BTS:
	case PTBTS_SOURCE_KMOD_PEBS:
		return ptbts_hw_unavail(source, PTBTS_HW_MACHINE);
	default:
		return ptbts_source_unavail(source);
	}
}

static ssize_t hw_verified_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0\n");
}

static ssize_t percpu_reason_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	u8 why = ptbts_machine_unavail(PTBTS_SOURCE_KMOD_BTS);

	return sysfs_emit(buf, "%s\n", ptbts_unavail_name(why));
}

static ssize_t percpu_pages_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", ptbts_percpu_pages());
}

static struct kobj_attribute ptbts_attr_abi = __ATTR_RO(abi_version);
static struct kobj_attribute ptbts_attr_pcpages = __ATTR_RO(percpu_pages);
static struct kobj_attribute ptbts_attr_hwv = __ATTR_RO(hw_verified);
static struct kobj_attribute ptbts_attr_percpu = __ATTR_RO(percpu_reason);
static struct kobj_attribute ptbts_attr_rec = __ATTR_RO(record_size);
static struct kobj_attribute ptbts_attr_pinned = __ATTR_RO(pinned_pages);
static struct kobj_attribute ptbts_attr_queued = __ATTR_RO(releases_queued);

static struct attribute *ptbts_root_attrs[] = {
	&ptbts_attr_abi.attr,
	&ptbts_attr_rec.attr,
	&ptbts_attr_pinned.attr,
	&ptbts_attr_queued.attr,
	&ptbts_attr_hwv.attr,
	&ptbts_attr_percpu.attr,
	&ptbts_attr_pcpages.attr,
	NULL
};

static const struct attribute_group ptbts_root_group = {
	.attrs = ptbts_root_attrs,
};

/**
 * struct ptbts_src_attr - a sysfs file about one source
 * @ka:     the attribute
 * @source: which source, an &enum ptbts_source
 */
struct ptbts_src_attr {
	struct kobj_attribute ka;
	u32 source;
};

static u32 ptbts_attr_source(struct kobj_attribute *attr)
{
	return container_of(attr, struct ptbts_src_attr, ka)->source;
}

static ssize_t available_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	u8 why = ptbts_machine_unavail(ptbts_attr_source(attr));

	return sysfs_emit(buf, "%d\n", why == PTBTS_OK);
}

static ssize_t reason_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	u8 why = ptbts_machine_unavail(ptbts_attr_source(attr));

	return sysfs_emit(buf, "%s\n", ptbts_unavail_name(why));
}

#define PTBTS_SRC_ATTR(var, file, id)					\
static struct ptbts_src_attr var = {					\
	.ka = __ATTR_RO(file), .source = (id),				\
}

/* Both files of source @id: PTBTS_SRC_ATTR() first, for each. */
#define PTBTS_SOURCE_GROUP(var, dirname)				\
static struct attribute *var##_attrs[] = {				\
	&var##_available.ka.attr, &var##_reason.ka.attr, NULL		\
};									\
static const struct attribute_group var##_group = {			\
	.name = dirname, .attrs = var##_attrs,				\
}

PTBTS_SRC_ATTR(ptbts_bts_available, available, PTBTS_SOURCE_KMOD_BTS);
PTBTS_SRC_ATTR(ptbts_bts_reason, reason, PTBTS_SOURCE_KMOD_BTS);
PTBTS_SOURCE_GROUP(ptbts_bts, "kmod-bts");
PTBTS_SRC_ATTR(ptbts_pebs_available, available, PTBTS_SOURCE_KMOD_PEBS);
PTBTS_SRC_ATTR(ptbts_pebs_reason, reason, PTBTS_SOURCE_KMOD_PEBS);
PTBTS_SOURCE_GROUP(ptbts_pebs, "kmod-pebs");
PTBTS_SRC_ATTR(ptbts_step_available, available, PTBTS_SOURCE_KMOD_STEP);
PTBTS_SRC_ATTR(ptbts_step_reason, reason, PTBTS_SOURCE_KMOD_STEP);
PTBTS_SOURCE_GROUP(ptbts_step, "kmod-step");

static const struct attribute_group *ptbts_source_groups[] = {
	&ptbts_bts_group,
	&ptbts_pebs_group,
	&ptbts_step_group,
	NULL
};

static struct kobject *ptbts_kobj;
static struct kobject *ptbts_sources_kobj;

/**
 * ptbts_sysfs_init() - create /sys/kernel/ptrace_bts
 *
 * Return: 0 or a negative errno.
 */
int ptbts_sysfs_init(void)
{
	int err;

	ptbts_kobj = kobject_create_and_add("ptrace_bts", kernel_kobj);
	if (!ptbts_kobj)
		return -ENOMEM;
	err = sysfs_create_group(ptbts_kobj, &ptbts_root_group);
	if (err)
		goto put_root;
	ptbts_sources_kobj = kobject_create_and_add("sources", ptbts_kobj);
	if (!ptbts_sources_kobj) {
		err = -ENOMEM;
		goto put_root;
	}
	err = sysfs_create_groups(ptbts_sources_kobj, ptbts_source_groups);
	if (err)
		goto put_sources;
	return 0;

put_sources:
	kobject_put(ptbts_sources_kobj);
put_root:
	kobject_put(ptbts_kobj);
	return err;
}

/**
 * ptbts_sysfs_exit() - remove /sys/kernel/ptrace_bts
 */
void ptbts_sysfs_exit(void)
{
	sysfs_remove_groups(ptbts_sources_kobj, ptbts_source_groups);
	kobject_put(ptbts_sources_kobj);
	kobject_put(ptbts_kobj);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the misc device /dev/ptrace_bts, its file operations and the
 * module's init and exit.
 *
 * The device is open to every user: opening it grants nothing.  What a
 * session may do is decided per thread, by the ptrace relationship.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "ptbts.h"

static int ptbts_open(struct inode *inode, struct file *file)
{
	struct ptbts_session *s = ptbts_session_new();

	if (!s)
		return -ENOMEM;
	file->private_data = s;
	return stream_open(inode, file);
}

static int ptbts_release(struct inode *inode, struct file *file)
{
	ptbts_session_free(file->private_data);
	return 0;
}

static long ptbts_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ptbts_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (cmd == PTBTS_IOC_CAPS)
		return ptbts_ioctl_caps(uarg);
	/*
	 * The session is the tracer's: a process that inherited or received
	 * the fd is not the tracer of anything attached through it.
	 */
	switch (cmd) {
	case PTBTS_IOC_ATTACH:
	case PTBTS_IOC_DETACH:
	case PTBTS_IOC_STATUS:
	case PTBTS_IOC_WAIT:
	case PTBTS_IOC_ACK:
	case PTBTS_IOC_PERCPU_START:
	case PTBTS_IOC_PERCPU_STOP:
	case PTBTS_IOC_PERCPU_STATUS:
		if (!ptbts_session_is_owner(s))
			return -EPERM;
		break;
	default:
		return -ENOTTY;
	}

	switch (cmd) {
	case PTBTS_IOC_ATTACH:
		return ptbts_ioctl_attach(s, uarg);
	case PTBTS_IOC_DETACH:
		return ptbts_ioctl_detach(s, arg);
	case PTBTS_IOC_STATUS:
		return ptbts_ioctl_status(s, uarg);
	case PTBTS_IOC_WAIT:
		return ptbts_ioctl_wait(s, uarg);
	case PTBTS_IOC_PERCPU_START:
		return ptbts_ioctl_percpu_start(s, uarg);
	case PTBTS_IOC_PERCPU_STOP:
		return ptbts_ioctl_percpu_stop(s);
	case PTBTS_IOC_PERCPU_STATUS:
		return ptbts_ioctl_percpu_status(s, uarg);
	default:
		return ptbts_ioctl_ack(s, uarg);
	}
}

static __poll_t ptbts_poll(struct file *file, poll_table *pt)
{
	return ptbts_poll_session(file->private_data, file, pt);
}

/* The per-CPU mode's buffers, read-only, to the session's owner only. */
static int ptbts_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ptbts_session *s = file->private_data;

	if (!ptbts_session_is_owner(s))
		return -EPERM;
	return ptbts_percpu_mmap(s, vma);
}

/*
 * Every argument is a pointer to a struct with one layout for 32- and 64-bit
 * callers, or (DETACH) a 32-bit value, which compat_ptr() leaves intact.
 */
static const struct file_operations ptbts_fops = {
	.owner		= THIS_MODULE,
	.open		= ptbts_open,
	.release	= ptbts_release,
	.unlocked_ioctl	= ptbts_ioctl,
	.poll		= ptbts_poll,
	.mmap		= ptbts_mmap,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};

static struct miscdevice ptbts_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ptrace_bts",
	.fops	= &ptbts_fops,
	.mode	= 0666,
};

static int __init ptbts_init(void)
{
	int err;

	err = ptbts_lifetime_init();
	if (err)
		return err;
	err = ptbts_step_init();
	if (err)
		goto lifetime_exit;
	err = ptbts_tracepoints_init();
	if (err)
		goto step_exit;
	err = ptbts_sysfs_init();
	if (err)
		goto tracepoints_exit;
	err = ptbts_percpu_init();
	if (err)
		goto sysfs_exit;
	err = misc_register(&ptbts_misc);
	if (err)
		goto percpu_exit;
	return 0;

percpu_exit:
	ptbts_percpu_exit();
sysfs_exit:
	ptbts_sysfs_exit();
tracepoints_exit:
	ptbts_tracepoints_exit();
step_exit:
	ptbts_step_exit();
lifetime_exit:
	ptbts_lifetime_exit();
	return err;
}

/*
 * Nothing here waits for user space.  No session can be open (each holds
 * a module reference), nor can a kmod-step state (each holds one until
 * its trap flag was taken back and its task_works ran) or a kmod-bts one
 * (until its preempt notifier is gone and its task_works ran): while one
 * is left, rmmod fails (EBUSY) before this runs.  What is left are
 * releases queued by exiting threads, which ptbts_lifetime_exit() waits
 * for, and RCU callbacks.
 */
static void __exit ptbts_exit(void)
{
	misc_deregister(&ptbts_misc);
	ptbts_percpu_exit();
	ptbts_sysfs_exit();
	ptbts_step_exit();
	ptbts_tracepoints_exit();
	ptbts_lifetime_exit();
	ptbts_hw_exit();
	/*
	 * The last put of a state, in one of our task_works, may be followed
	 * by its RCU callback and the waits above before that work has run
	 * its last instructions: a preempted task can still sit in our text.
	 * A Tasks RCU grace period ends only once every task has scheduled
	 * voluntarily or been in user mode, so none is left in the module.
	 */
	synchronize_rcu_tasks();
}

module_init(ptbts_init);
module_exit(ptbts_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Branch tracing of ptrace-stopped threads into pinned tracer pages");
MODULE_AUTHOR("ptrace-bts");

--[[
job_submit.lua — every job of hetlab's partitions goes through hetlab.

A Slurm job_submit rule (docs/slurm.md, "Every job of the partition through
hetlab"): a job that asks for one of HETLAB_PARTITIONS (alone, in a
comma-separated list, or as the default partition when it names none) is
refused unless the user the hetlab daemon runs as submitted it; so is a
change (`scontrol update`: nodes, partition, time, priority, the release
of a hold) to a job of those partitions, or one moving a job into them,
made by anyone else. What the job's own batch wrapper does after a
checkpoint (`scontrol requeuehold`) is a requeue, not a change: it stays
allowed, and so do scancel and squeue.

Install: set the two tables below, copy this file into the directory of
slurm.conf (slurmctld reads job_submit.lua from there), set
JobSubmitPlugins=lua in slurm.conf and restart slurmctld (later edits of
this file are read again by slurmctld by themselves). Needs Slurm's
job_submit/lua plugin (Debian: slurm-wlm-basic-plugins) and Lua 5.1+.

Tested by tests/slurm/deploy.sh on the local test cluster.
]]

-- The partitions hetlab drives (its config's slurm.partition).
local HETLAB_PARTITIONS = { hetlab = true }

-- The uids that may submit and change jobs there: the daemon's (root when
-- it submits on the users' behalf with --uid, as deploy/systemd runs it;
-- else the service account's uid), and root for the administrators.
local HETLAB_UIDS = { [0] = true }

-- The first of hetlab's partitions in a comma-separated list, or nil.
local function hetlab_in(list)
	if list == nil then
		return nil
	end
	for name in string.gmatch(list, "[^,%s]+") do
		if HETLAB_PARTITIONS[name] then
			return name
		end
	end
	return nil
end

-- The partition a job gets that asks for none: Slurm's default.
local function default_partition(part_list)
	for name, part in pairs(part_list) do
		if part.flag_default == 1 then
			return name
		end
	end
	return nil
end

local function refuse(uid, part, what)
	slurm.log_info("job_submit/lua: hetlab: refused %s of uid %d in partition %s", what, uid, part)
	slurm.user_msg("partition " .. part .. " is scheduled by hetlab: use `hetlab submit`, `hetlab cancel`; "
		.. "sbatch, srun, salloc and scontrol update are refused there")
	return slurm.ESLURM_ACCESS_DENIED or slurm.ERROR
end

function slurm_job_submit(job_desc, part_list, submit_uid)
	if HETLAB_UIDS[submit_uid] then
		return slurm.SUCCESS
	end
	local part = job_desc.partition
	if part == nil or part == "" then
		part = default_partition(part_list)
	end
	local p = hetlab_in(part)
	if p then
		return refuse(submit_uid, p, "a job")
	end
	return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	if HETLAB_UIDS[modify_uid] then
		return slurm.SUCCESS
	end
	local p = hetlab_in(job_rec.partition) or hetlab_in(job_desc.partition)
	if p then
		return refuse(modify_uid, p, "a change to job " .. tostring(job_rec.job_id))
	end
	return slurm.SUCCESS
end

slurm.log_info("job_submit/lua: hetlab's rule loaded")
return slurm.SUCCESS

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where a process stands in a job, from its launcher's environment: the
 * one place that knows the variables, for the profiler's file names
 * (profile.<rank>.0.<thread>) and ktau-run's once-per-node work.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "tau/tau.h"

/* Open MPI, MPICH/Intel MPI (PMI), PMIx, Slurm. */
static const char *const rank_variables[] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
};

/* Open MPI, MPICH's Hydra, PMI, Slurm. */
static const char *const local_rank_variables[] = {
	"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "SLURM_LOCALID",
};

/* The first of names set to a decimal number that fits an unsigned int. */
static int first_number(const char *const *names, size_t count, unsigned int *rank,
			const char **variable)
{
	size_t i;

	for (i = 0; i < count; i++) {
		const char *v = getenv(names[i]);
		unsigned long n;
		char *end;

		if (!v || *v < '0' || *v > '9')
			continue;
		errno = 0;
		n = strtoul(v, &end, 10);
		if (*end || errno || n > UINT_MAX)
			continue;
		*rank = (unsigned int)n;
		if (variable)
			*variable = names[i];
		return 0;
	}
	return -ENOENT;
}

int ktau_launcher_rank(unsigned int *rank, const char **variable)
{
	return first_number(rank_variables, KTAU_ARRAY_SIZE(rank_variables), rank, variable);
}

int ktau_launcher_local_rank(unsigned int *rank, const char **variable)
{
	return first_number(local_rank_variables, KTAU_ARRAY_SIZE(local_rank_variables),
			    rank, variable);
}

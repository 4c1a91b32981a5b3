// `mpirun -np N ramus precompute`: the MPI processes as precompute's ProcessGroup
// (distributed_reduction.h). MPI starts only when a launcher (Open MPI's or MPICH's mpirun, or
// any PMI/PMIx one) started this program; a plain `ramus` never touches it.
#pragma once

#include <memory>

#include "ramus/precompute/reduction/distributed_reduction.h"

namespace ramus::cli {

/// The MPI processes this program was started as, MPI initialized now and finalized when the
/// group is destroyed; null when no launcher started it. Throws Error when one did but this
/// build has no MPI.
std::unique_ptr<ProcessGroup> mpi_processes();

}  // namespace ramus::cli

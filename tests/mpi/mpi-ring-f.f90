! SPDX-License-Identifier: GPL-2.0-or-later
!
! mpi-ring-f [ROUNDS [BYTES]]: tests/mpi/mpi-ring.c in Fortran (`use mpi`),
! the same MPI calls with the same counts and sizes (tests/mpi/mpi-ring.h),
! for the test that libktau-mpi times a Fortran program's MPI routines.
! Every message's contents are checked; one line per rank; exit status 1
! when a check failed, 2 on bad arguments.
program mpi_ring_f
  use mpi
  implicit none
  integer, parameter :: bcast_ints = 16
  integer :: rank, size, left, right, ierr, i, bad, argc, stat
  integer :: rounds, bytes, step
  integer :: bcast(bcast_ints), reqs(2)
  integer(kind=8) :: mine, ranksum
  character, allocatable :: out(:), in(:)
  character(len=32) :: arg

  rounds = 10
  bytes = 4096
  argc = command_argument_count()
  if (argc >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=stat) rounds
    if (stat /= 0 .or. rounds < 0) call usage()
  end if
  if (argc >= 2) then
    call get_command_argument(2, arg)
    read (arg, *, iostat=stat) bytes
    if (stat /= 0 .or. bytes < 1) call usage()
  end if
  if (argc > 2) call usage()

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  if (size < 2) then
    write (0, '(a)') 'mpi-ring-f: needs at least 2 ranks (mpirun -np 4)'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  allocate (out(bytes), in(bytes))
  bad = 0

  do step = 0, rounds - 1
    call fill(step)
    if (mod(rank, 2) == 0) then
      call MPI_Send(out, bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, ierr)
      call MPI_Recv(in, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(in, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(out, bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, ierr)
    end if
    call expect(step)
  end do

  call fill(rounds)
  call MPI_Irecv(in, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(out, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call expect(rounds)

  call fill(rounds + 1)
  call MPI_Sendrecv(out, bytes, MPI_BYTE, right, 3, in, bytes, MPI_BYTE, left, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call expect(rounds + 1)

  do i = 1, bcast_ints
    bcast(i) = -1
    if (rank == 0) bcast(i) = 999 + i
  end do
  call MPI_Bcast(bcast, bcast_ints, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  do i = 1, bcast_ints
    if (bcast(i) /= 999 + i) bad = bad + 1
  end do

  mine = rank
  call MPI_Allreduce(mine, ranksum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ranksum /= int(size, 8) * (size - 1) / 2) bad = bad + 1
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  if (bad == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,i0,a)') 'mpi-ring-f: rank ', rank, ' of ', size, ': ', &
      rounds + 2, ' messages of ', bytes, ' bytes sent and received, ok'
  else
    write (*, '(a,i0,a)') 'mpi-ring-f: rank ', rank, ': BAD DATA'
  end if
  flush (6)
  call MPI_Finalize(ierr)
  if (bad /= 0) stop 1

contains

  ! the bytes rank `rank` sends in step `s` (mpi-ring.c's pattern)
  subroutine fill(s)
    integer, intent(in) :: s
    integer :: k
    do k = 1, bytes
      out(k) = achar(mod(rank * 31 + s * 7 + (k - 1), 256))
    end do
  end subroutine fill

  subroutine expect(s)
    integer, intent(in) :: s
    integer :: k
    do k = 1, bytes
      if (ichar(in(k)) /= mod(left * 31 + s * 7 + (k - 1), 256)) then
        bad = bad + 1
        return
      end if
    end do
  end subroutine expect

  subroutine usage()
    write (0, '(a)') 'usage: mpi-ring-f [ROUNDS [BYTES]]'
    stop 2
  end subroutine usage
end program mpi_ring_f

#!/bin/bash
# One device run (nvidia-h200, Firecracker: ncu works with --clock-control none; nsys does not). Writes ≤ 8 flat
# files to $OUT: Kineto trace, .ncu-rep, its details and raw CSV exports, nvidia-smi excerpt, versions, log.
# Copy this folder to /work/main/.devcap/ and run: run(command="bash .devcap/capture.sh", carry=[".devcap"],
# timeout_s=420).
set -u
D=$(dirname "$0"); O=${OUT:-/tmp/devcap_out}; mkdir -p "$O"
exec > >(tee "$O/capture.log") 2>&1
(ncu --version; nvcc --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__)') > "$O/versions.txt" 2>&1
nvidia-smi -q | grep -E "Product Name|Product Architecture|Driver Version|CUDA Version|Max Clocks|Graphics|SM  |Memory  |Total" \
  | head -30 > "$O/nvidia_smi.txt"
PYTHONUNBUFFERED=1 timeout 120 python3 "$D/workload.py" || echo "workload failed rc=$?"
nvcc -O3 -arch=sm_90 -o /tmp/kernels "$D/kernels.cu" && \
timeout 200 ncu --clock-control none --launch-count 4 \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
  --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis \
  -o /tmp/h200 -f /tmp/kernels || echo "ncu failed rc=$?"
if [ -f /tmp/h200.ncu-rep ]; then
  cp /tmp/h200.ncu-rep "$O/h200_kernels.ncu-rep"
  ncu --import /tmp/h200.ncu-rep --csv --page details > "$O/h200_kernels_details.csv"
  ncu --import /tmp/h200.ncu-rep --csv --page raw > "$O/h200_kernels_raw.csv"
fi
ls -la "$O"

#!/bin/bash
# One device run (nvidia-h200, Firecracker; about 90 s there). Everything lands in /tmp/cap, tarred into
# $OUT/cap.tgz after each stage (so a stage killed by its timeout still returns the earlier ones); the log is
# $OUT/capture.log. Copy this folder to .devcap/ (git-ignored) beside gl.py (`from gpulens.cli import main`) and a
# whl/ folder of the wheels the image lacks (msgspec, plotly, cxxfilt, narwhals; device README), then
# run(command="bash .devcap/capture.sh", carry=[".devcap"], timeout_s=480). compiled.py and gpu_train.py (with
# GT_BATCH/GT_HIDDEN/GT_STEPS) ran in a second call the same way.
set -u
D=$(cd "$(dirname "$0")" && pwd); R=$(cd "$D/.." && pwd); O=${OUT:-/tmp/devcap_out}; C=/tmp/cap
mkdir -p "$O" "$C"; exec > >(tee "$O/capture.log") 2>&1
pack() { tar czf "$O/cap.tgz.tmp" -C /tmp cap && mv "$O/cap.tgz.tmp" "$O/cap.tgz"; echo "== packed after $1 ($(date +%T))"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$D"/whl/*.whl
NCU=$(readlink -f "$(command -v ncu)"); NCUPY=$(dirname "$NCU")/extras/python
export PYTHONPATH=/tmp/site:$R/src:$NCUPY PYTHONUNBUFFERED=1 CAP=$C
GL="python3 $D/gl.py"
echo "== setup $(date +%T) ncu=$NCU"
python3 -c 'import gpulens, msgspec, plotly, cxxfilt, pandas, numba, pynvml; print("imports ok pandas", pandas.__version__, "numba", numba.__version__)'
python3 -c 'import ncu_report; print("ncu_report ok")' || echo "no ncu_report at $NCUPY"
(ncu --version; nvcc --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)') > "$C/versions.txt" 2>&1
nvidia-smi -q > /tmp/smi.txt; grep -E "Product Name|Product Architecture|Driver Version|CUDA Version|Max Clocks|Graphics|SM  |Memory  |Total|Power Limit" /tmp/smi.txt | head -40 > "$C/nvidia_smi.txt"
cat "$C/versions.txt"
# 1. Kineto trace of the workload
timeout 150 python3 "$D/workload.py" || echo "workload failed rc=$?"; pack workload
# 2. ncu on the CUDA C++ kernels (SpeedOfLight + roofline counters, occupancy, stalls)
EXTRA=""; ncu --list-sections > /tmp/sections.txt 2>&1; cp /tmp/sections.txt "$C/ncu_sections.txt"
grep -q "SpeedOfLight_RooflineChart " /tmp/sections.txt && EXTRA="$EXTRA --section SpeedOfLight_RooflineChart"
grep -q "SpeedOfLight_HierarchicalTensorRooflineChart " /tmp/sections.txt && EXTRA="$EXTRA --section SpeedOfLight_HierarchicalTensorRooflineChart"
ncu --query-metrics --chip gh100 > /tmp/metrics.txt 2>&1; grep -o "sm__ops_path_tensor_[a-z0-9_]*" /tmp/metrics.txt | sort -u > "$C/ncu_tensor_metrics.txt"
M="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum"
for m in sm__ops_path_tensor_src_bf16_dst_fp32 sm__inst_executed_pipe_tensor_op_hmma sm__inst_executed_pipe_tensor_op_gmma; do
  grep -qx "$m" "$C/ncu_tensor_metrics.txt" && M="$M,$m.sum"; grep -q "^ *$m " /tmp/metrics.txt && M="$M,$m.sum"; done
M=$(echo "$M" | tr ',' '\n' | awk '!s[$0]++' | paste -sd,)
SECT="--section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis $EXTRA"
echo "== ncu sections: $SECT metrics: $M"
nvcc -O3 -arch=sm_90 -o /tmp/kernels "$D/kernels.cu" && \
timeout 150 ncu --clock-control none $SECT --metrics "$M" -o "$C/h200_kernels" -f /tmp/kernels || echo "ncu kernels failed rc=$?"
if [ -f "$C/h200_kernels.ncu-rep" ]; then
  ncu --import "$C/h200_kernels.ncu-rep" --csv --page details > "$C/h200_kernels_details.csv"
  ncu --import "$C/h200_kernels.ncu-rep" --csv --page raw > "$C/h200_kernels_raw.csv"
fi; pack ncu-kernels
# 3. ncu on PyTorch kernels inside an NVTX range
timeout 150 ncu --clock-control none --nvtx --nvtx-include "gpulens_ncu/" $SECT --metrics "$M" -o "$C/h200_torch" -f python3 "$D/torch_ncu.py" || echo "ncu torch failed rc=$?"
[ -f "$C/h200_torch.ncu-rep" ] || { echo "nvtx filter matched nothing: launch-skip fallback"; timeout 120 ncu --clock-control none --launch-skip 13 --launch-count 4 $SECT --metrics "$M" -o "$C/h200_torch" -f python3 "$D/torch_ncu.py"; }
if [ -f "$C/h200_torch.ncu-rep" ]; then
  ncu --import "$C/h200_torch.ncu-rep" --csv --page details > "$C/h200_torch_details.csv"
  ncu --import "$C/h200_torch.ncu-rep" --csv --page raw > "$C/h200_torch_raw.csv"
fi; pack ncu-torch
# 4. gpulens profile, live, torch backend with NVML telemetry
timeout 150 $GL profile --out "$C/live" --steps 4 --warmup 2 --wait 1 --interval-ms 20 "$D/gpu_train.py" > "$C/live_console.txt" 2>&1; echo "live rc=$?"; tail -5 "$C/live_console.txt"; pack live
# 5. gpulens analyze on each capture (console text + JSON), the .ncu-rep through NVIDIA's ncu_report
for f in h200_kineto.pt.trace.json.gz h200_kernels.ncu-rep h200_kernels_details.csv h200_kernels_raw.csv h200_torch.ncu-rep h200_torch_details.csv; do
  [ -f "$C/$f" ] || continue
  COLUMNS=160 timeout 90 $GL analyze "$C/$f" --no-cache --json "$C/an_$f.json" > "$C/an_$f.txt" 2>&1; echo "analyze $f rc=$?"; done
pack analyze
# 6. gpulens's live-profiling tests with a GPU present
timeout 120 python3 -m pytest -q -x -p no:cacheprovider "$R/tests/test_profile.py" > "$C/pytest_profile.txt" 2>&1; echo "pytest rc=$?"; tail -3 "$C/pytest_profile.txt"; pack pytest
# 7. gpulens profile --backend ncu (default clock control, every kernel) on a short script
timeout 150 $GL profile --backend ncu --out "$C/live_ncu" -- python3 "$D/torch_ncu.py" > "$C/live_ncu_console.txt" 2>&1; echo "ncu backend rc=$?"; tail -5 "$C/live_ncu_console.txt"
rm -f "$C"/live_ncu/*.ncu-rep.big 2>/dev/null; pack ncu-backend
du -sh "$C"/* ; ls -la "$O"

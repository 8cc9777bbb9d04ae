export TRITON_SUITE_OUT=/tmp/suite
(SKIP_TUTORIALS=1 timeout 370 bash tools/triton-suite.sh run --max-params 3 > $OUT/suite.log 2>&1; tar czf $OUT/suite.tgz -C /tmp suite) &
OUT=/tmp/gpu timeout 370 bash tools/gpu-run.sh build-gpu tests > $OUT/gpurun.log 2>&1
tar czf $OUT/gpu.tgz -C /tmp gpu
wait
tail -45 $OUT/gpurun.log | cut -c1-160; grep -A14 "^| file" $OUT/suite.log | cut -c1-200

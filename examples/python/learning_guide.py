import numpy as np
import cudabridge as cb

cb.init()

# 기존 numpy 코드
a_np = np.random.rand(1000).astype(np.float32)
b_np = np.random.rand(1000).astype(np.float32)
c_np = a_np + b_np  # CPU 연산

# CudaBridge로 변환 (3줄만 추가)
a_gpu = cb.to_device(a_np)
b_gpu = cb.to_device(b_np)
c_gpu = a_gpu + b_gpu  # GPU 연산! (동일한 연산자)
c_result = cb.from_device(c_gpu)

# 결과 검증
assert np.allclose(c_np, c_result)

cb.shutdown()

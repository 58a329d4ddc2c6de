import numpy as np
import cudabridge as cb

# 1. 초기화
cb.init()

# 2. 데이터를 GPU로 전송
a = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
b = np.array([5.0, 6.0, 7.0, 8.0], dtype=np.float32)

gpu_a = cb.to_device(a)
gpu_b = cb.to_device(b)

# 3. GPU에서 연산 (기존 Python 연산자 사용 가능!)
gpu_c = gpu_a + gpu_b          # 요소별 덧셈
gpu_d = gpu_a * gpu_b          # 요소별 곱셈
gpu_e = gpu_a * 2.0            # 스칼라 곱셈

# 4. 결과를 numpy로 가져오기
result = cb.from_device(gpu_c)
print(result)  # [6.0, 8.0, 10.0, 12.0]

# 5. 리덕션 연산
total = gpu_a.sum()     # 합계
avg = gpu_a.mean()      # 평균
maximum = gpu_a.max()   # 최댓값

# 6. 행렬 곱
mat_a = cb.to_device(np.random.rand(100, 200).astype(np.float32))
mat_b = cb.to_device(np.random.rand(200, 50).astype(np.float32))
mat_c = mat_a @ mat_b   # (100, 50) 행렬 결과

# 7. 편의 함수
zeros = cb.zeros((1000,))          # GPU 0 배열
ones = cb.ones((10, 10))           # GPU 1 배열
random = cb.rand((256, 256))       # GPU 랜덤 배열

# 8. 메모리 정보
free_mem, total_mem = cb.mem_info()
print(f"GPU Memory: {free_mem / 1e9:.1f} GB free / {total_mem / 1e9:.1f} GB total")

# 9. 정리
cb.shutdown()

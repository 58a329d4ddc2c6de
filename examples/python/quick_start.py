import numpy as np
import cudabridge as cb

cb.init()

# numpy와 동일한 방식으로 GPU 연산
a = cb.to_device(np.array([1, 2, 3, 4], dtype=np.float32))
b = cb.to_device(np.array([5, 6, 7, 8], dtype=np.float32))

c = a + b                           # GPU에서 덧셈
d = a @ b.reshape(4, 1)             # 연산자도 지원

result = cb.from_device(c)          # 결과를 numpy로
print(result)                       # [6. 8. 10. 12.]

cb.shutdown()

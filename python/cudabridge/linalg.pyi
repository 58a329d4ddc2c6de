from typing import Optional, Tuple, Union

from . import ndarray

def norm(x: object, ord: Union[None, int, float, str] = ..., axis: Union[None, int, Tuple[int, ...]] = ...,
         keepdims: bool = ...) -> ndarray: ...

"""The exceptions cudabridge raises: one base class, a subclass per kind of failure.

Each carries the runtime's message and its error code (``err.code``, a cbError_t number).
Shape and dtype mistakes raise ValueError / TypeError, as numpy does.
"""


class Error(RuntimeError):
    """A failure reported by the CudaBridge runtime."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class NotInitializedError(Error):
    """cb.init() has not run, or cb.shutdown() did."""


class NoDeviceError(Error):
    """No eGPU is connected (or none answers to the index asked for)."""


class DeviceLostError(Error):
    """The eGPU went away: unplugged, link down, or disconnected by another process."""


class OutOfMemoryError(Error, MemoryError):
    """The GPU has no room for the allocation."""


class PolicyError(Error):
    """The safety policy refused the device or the work (e.g. an emergency stop)."""


class IntegrityError(Error):
    """An end-to-end CRC check of a copy failed."""


class DeviceResetError(Error):
    """The device was reset and its memory is gone; call cb.device_reset()."""


class LaunchError(Error):
    """A kernel failed on the device."""


# cbError_t codes (host/include/cudabridge.h) -> classes; None: anything else.
_CODES = {
    2: OutOfMemoryError,
    3: NotInitializedError,
    100: NoDeviceError,
    101: NoDeviceError,
    719: LaunchError,
    10001: DeviceLostError,
    10002: DeviceLostError,
    10003: OutOfMemoryError,
    10004: IntegrityError,
    10005: PolicyError,
    10006: PolicyError,
    10007: DeviceResetError,
    10008: PolicyError,
    None: Error,
}

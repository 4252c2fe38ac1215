"""``xa.fft``: NumPy's ``numpy.fft`` and the Array API fft extension, the NumPy frontend's
functions of xarr/_numpy/fft.py on the FFT family (xarr/_ops/fft.py, ducc0). ``xa.lax.fft``
is XLA's Fft op. This module only assembles.

>>> xa.fft.rfft(xa.asarray([1., 2., 3., 4.]))   # [10, -2+2j, -2]
"""

from xarr._numpy.fft import (fft, fft2, fftfreq, fftn, fftshift, hfft, ifft, ifft2, ifftn,
                             ifftshift, ihfft, irfft, irfft2, irfftn, rfft, rfft2, rfftfreq,
                             rfftn)

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

"""`python3 -m awb_trainer.torchrun ARGS` = `torchrun ARGS` (torch.distributed.run), with one compatibility fix.

torch < 2.0 on Python ≥ 3.11 (Debian bookworm's python3-torch 1.13 + Python 3.11): Std.from_str("0"), the default
of --redirects and --tee, iterates the IntFlag `Std`, and Python 3.11 no longer yields a flag's zero member, so
it returns None and torchrun dies with "'NoneType' object has no attribute 'get'". Where that bug is present,
Std.NONE is returned for the zero value; elsewhere torchrun runs unchanged.
"""

from __future__ import annotations

from torch.distributed.elastic.multiprocessing.api import Std


def _patch_std_from_str() -> None:
    original = Std.from_str
    if original("0") is not None:
        return  # a torch or Python without the bug

    def from_str(vm: str):
        result = original(vm)
        if result is None:
            return Std.NONE
        if isinstance(result, dict):
            return {k: Std.NONE if v is None else v for k, v in result.items()}
        return result

    Std.from_str = staticmethod(from_str)


if __name__ == "__main__":
    _patch_std_from_str()
    from torch.distributed.run import main

    main()

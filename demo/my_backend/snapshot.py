"""A backend's snapshot hook, written the way SGLang's still was: after a successful capture the
source worker leaves through SystemExit, which unwinds into CUDA teardown and dies with SIGSEGV."""
import logging

from dynamo.common.snapshot import EngineSnapshotController

logger = logging.getLogger(__name__)


async def run_snapshot_lifecycle(engine, pause_controller, snapshot_config):
    controller = EngineSnapshotController(engine, pause_controller, snapshot_config, (None,))
    if not await controller.wait_for_restore():
        logger.info("Initial snapshot captured successfully; exiting without destroying the engine")
        raise SystemExit(0)
    logger.info("Restored from snapshot; resuming")
    return engine

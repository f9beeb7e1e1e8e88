import atexit
import logging
import os
import random
import shutil
from argparse import Namespace
from contextlib import ExitStack, nullcontext
from typing import TYPE_CHECKING

import ray
import torch
import torch.distributed as dist
from torch_memory_saver import torch_memory_saver

from miles.backends.megatron_utils.rematerialize_utils import build_main_cast_context
from miles.dashboard import hooks as dashboard_hooks
from miles.ray.train_actor import TrainRayActor
from miles.utils import train_dump_utils
from miles.utils.argparse_utils import inplace_modify_args
from miles.utils.audit_utils.event_logger.logger import event_logger_context
from miles.utils.audit_utils.witness.allocator import WitnessInfo
from miles.utils.context_utils import with_defer
from miles.utils.distributed_utils import get_gloo_group
from miles.utils.ft_utils.indep_dp import IndepDPInfo
from miles.utils.hf_config import load_hf_config
from miles.utils.memory_utils import clear_memory, print_memory
from miles.utils.multi_lora import is_multi_lora_enabled
from miles.utils.processing_utils import load_tokenizer
from miles.utils.ray_utils import Box
from miles.utils.reloadable_process_group import destroy_process_groups, monkey_patch_torch_dist, reload_process_groups
from miles.utils.replay_base import all_replay_managers, routing_replay_manager
from miles.utils.test_utils.ft_test_actions import FTTestActionActorExecutor
from miles.utils.timer import Timer, inverse_timer, timer
from miles.utils.tracking_utils.structured_log import with_logs
from miles.utils.tracking_utils.tracking import init_tracking
from miles.utils.types import RolloutBatch

from ...utils.profile_utils import TrainProfiler
from ...utils.tensor_backper import TensorBackuper
from ..training_utils.data import DataIterator, get_data_iterator, get_num_rollouts, get_rollout_data
from ..training_utils.log_utils import log_cpu_memory, log_perf_data, log_rollout_data
from ..training_utils.loss import (
    compute_advantages_and_returns,
    get_log_probs_and_entropy,
    get_values,
    log_train_advantage_computation_event,
)
from ..training_utils.parallel import get_parallel_state
from ..training_utils.replay_data import fill_replay_data, register_replay_list_sequential
from .checkpoint import load_checkpoint
from .ft.checkpoint_transfer import recv_ckpt
from .ft.checkpoint_transfer import send_ckpt as _send_ckpt
from .ft.in_memory_checkpoint import InMemoryCheckpointManager
from .ft.indep_dp import reconfigure_indep_dp_group
from .initialize import init, is_first_replica_megatron_main_rank
from .lora_utils import is_lora_enabled, lora_rollout_enabled
from .model import TrainStepOutcome, forward_only, initialize_model_and_optimizer, save, train
from .parallel import verify_megatron_parallel_state
from .replay_utils import register_replay_list_moe
from .update_weight.common import named_params_and_buffers
from .update_weight.update_weight_from_distributed.broadcast import UpdateWeightFromDistributed
from .update_weight.update_weight_from_distributed.p2p import UpdateWeightP2P
from .update_weight.update_weight_from_tensor import UpdateWeightFromTensor

if TYPE_CHECKING:
    from miles.ray.rollout.rollout_manager import EnginesAndLock

logging.getLogger("megatron").setLevel(logging.WARNING)

logger = logging.getLogger(__name__)


def _setup_disk_offload_reclaim(disk_dir: str) -> None:
    """Wipe this rank's train disk-offload dir on startup and re-arm the atexit wipe.

    torch_memory_saver unlinks each backup file as its allocation is freed on a
    graceful teardown, but a SIGKILL'd run leaves stale files behind. The dir is
    per-rank (see actor_factory), so clearing it wholesale touches nobody else.
    """
    if not disk_dir:
        return
    shutil.rmtree(disk_dir, ignore_errors=True)
    os.makedirs(disk_dir, exist_ok=True)
    atexit.register(shutil.rmtree, disk_dir, ignore_errors=True)
    logger.info(f"Train disk-offload reclaim armed for {disk_dir} (startup wipe + atexit)")


class MegatronTrainRayActor(TrainRayActor):
    @with_logs
    @with_defer(lambda: Timer().start("train_wait"))
    def init(
        self,
        args: Namespace,
        role: str,
        *,
        with_ref: bool = False,
        with_opd_teacher: bool = False,
        recv_ckpt_src_rank: int | None = None,
        indep_dp_info: IndepDPInfo,
    ) -> int | None:
        monkey_patch_torch_dist()

        super().init(args, role, with_ref, with_opd_teacher=with_opd_teacher)

        for m in all_replay_managers:
            m.register_replay_list_func = register_replay_list_sequential
        routing_replay_manager.register_replay_list_func = register_replay_list_moe

        init(
            args,
            indep_dp_store_addr=self._indep_dp_store_addr,
            indep_dp_info=indep_dp_info,
        )

        self._ft_test_action_executor = FTTestActionActorExecutor.from_args(
            args,
            cell_index=indep_dp_info.cell_index,
            num_cells=indep_dp_info.num_cells,
            rank=self._rank,
        )

        if args.dumper_enable:
            from sglang.srt.debug_utils.dumper import dumper

            dumper.apply_source_patches()

        self._is_first_replica_megatron_main_rank = is_first_replica_megatron_main_rank()

        if self._is_first_replica_megatron_main_rank:
            init_tracking(args, primary=False)

        dashboard_hooks.register_train_actor(args)

        unsupported = {"train_actor", "train_log_probs"} & set(args.profile_target)
        if unsupported and args.use_pytorch_profiler:
            raise NotImplementedError(
                f"--profile-target {' '.join(sorted(unsupported))} is not supported for Megatron backend"
            )
        self.prof = TrainProfiler(args)

        # read config and tokenizer serialized to prevent concurrent writing bug.
        for i in range(dist.get_world_size()):
            if i == dist.get_rank():
                self.hf_config = load_hf_config(args.hf_checkpoint)
                self.tokenizer = load_tokenizer(
                    self.args.hf_checkpoint, chat_template_path=self.args.chat_template_path, trust_remote_code=True
                )
            dist.barrier(group=get_gloo_group())

        self.train_parallel_config = (
            {}
            if args.indep_dp
            else {
                "dp_size": get_parallel_state().intra_dp.size,
                "cp_size": get_parallel_state().cp.size,
                "vpp_size": get_parallel_state().vpp_size,
                "microbatch_group_size_per_vp_stage": get_parallel_state().microbatch_group_size_per_vp_stage,
            }
        )
        dist.barrier(group=get_gloo_group())

        if args.offload_train:
            if (x := args.train_memory_margin_bytes) > 0:
                # --train-memory-margin-bytes can tune this
                logger.info(f"Set torch_memory_saver.memory_margin_bytes to {x}")
                torch_memory_saver.memory_margin_bytes = x
            if args.offload_train_target == "disk":
                _setup_disk_offload_reclaim(os.environ.get("TMS_DISK_BACKUP_DIR"))

        if self.args.debug_rollout_only:
            return 0

        if role == "critic":
            self.args.load = self.args.critic_load
            self.args.save = self.args.critic_save
            self.args.lr = self.args.critic_lr
            self.args.lr_warmup_iters = self.args.critic_lr_warmup_iters
        else:
            for m in all_replay_managers:
                m.enabled = getattr(self.args, f"use_{m.name}_replay", False)
                m.enable_check_replay_result = m.enabled and self.args.ci_test

        checkpointing_context = None
        if recv_ckpt_src_rank is not None:
            ckpt_manager = recv_ckpt(
                indep_dp=get_parallel_state().indep_dp,
                src_rank=recv_ckpt_src_rank,
            )
            checkpointing_context = {"local_checkpoint_manager": ckpt_manager}
        elif args.non_persistent_ckpt_type == "local":
            checkpointing_context = {"local_checkpoint_manager": InMemoryCheckpointManager()}

        heal_load_overrides: dict[str, object] = (
            dict(no_load_optim=False, no_load_rng=False, finetune=False) if recv_ckpt_src_rank is not None else {}
        )
        with inplace_modify_args(args, heal_load_overrides):
            self.model, self.optimizer, self.opt_param_scheduler, loaded_rollout_id = initialize_model_and_optimizer(
                args, role, checkpointing_context=checkpointing_context
            )

        parallel_state = get_parallel_state()
        if parallel_state.cp.size > 1:
            from miles_plugins.models.cp_utils import detect_and_setup_hybrid_cp

            for model_chunk in self.model:
                detect_and_setup_hybrid_cp(
                    model_chunk, parallel_state.cp.group, parallel_state.cp.rank, parallel_state.cp.size
                )

        verify_megatron_parallel_state(self.model)

        start_rollout_id = loaded_rollout_id + 1
        self._asleep = False

        if role == "critic":
            if self.args.offload_train:
                self.sleep()
            return start_rollout_id

        main_cast_ctx = None
        if args.rematerialize_param_from_master_weight:
            main_cast_ctx = build_main_cast_context(args, model=self.model, optimizer=self.optimizer)

        self.weights_backuper = TensorBackuper.create(
            source_getter=lambda: named_params_and_buffers(
                self.args,
                self.model,
                convert_to_global_name=args.megatron_to_hf_mode == "raw",
            ),
            main_cast_ctx=main_cast_ctx,
        )
        self._active_model_tag: str | None = "actor"
        if self._enable_weight_backup:
            self.weights_backuper.backup("actor")

        if with_ref:
            self.load_other_checkpoint("ref", args.ref_load)

        # Load teacher model for Megatron-based on-policy distillation
        if with_opd_teacher:
            self.load_other_checkpoint("teacher", args.opd_teacher_load)

        if self.args.keep_old_actor:
            # Load old_actor checkpoint
            self.load_other_checkpoint("old_actor", args.load)
            # Create rollout_actor as a copy of current actor
            if args.update_weights_interval == 1:
                self.weights_backuper.backup("rollout_actor")

        if self.args.vocab_size is None:
            self.args.vocab_size = self.tokenizer.vocab_size

        if self.args.colocate:
            update_weight_cls = UpdateWeightFromTensor
        else:
            if self.args.update_weight_transfer_mode == "broadcast":
                update_weight_cls = UpdateWeightFromDistributed
            elif self.args.update_weight_transfer_mode == "disk-delta":
                # Lazy import: keeps the delta deps (numpy/zstandard/xxhash) off the other paths.
                from .update_weight.update_weight_from_distributed.delta import UpdateWeightFromDiskDelta

                update_weight_cls = UpdateWeightFromDiskDelta
            else:
                update_weight_cls = UpdateWeightP2P
        self.weight_updater = update_weight_cls(
            self.args,
            self.model,
            weights_getter=lambda: self.weights_backuper.get("actor"),
            model_name=type(self.hf_config).__name__.lower() if self.args.model_name is None else self.args.model_name,
            quantization_config=getattr(self.hf_config, "quantization_config", None),
            is_lora=lora_rollout_enabled(args),
        )

        # Adapters currently loaded into Megatron slots on this rank.
        self.loaded_adapters: dict[str, object] = {}
        # Adapters with stale engine-side weights (newly loaded or just trained);
        # consumed by the next update_weights. Identical on every rank.
        self._multi_lora_pending_push: set[str] = set()

        # empty cache after initialization
        clear_memory()

        self._switch_model("actor")
        if self.args.offload_train:
            self.sleep()

        self.rollout_data_postprocess = None
        if (x := self.args.rollout_data_postprocess_path) is not None:
            from miles.utils.misc import load_function

            self.rollout_data_postprocess = load_function(x)

        self.prof.on_init_end()

        return start_rollout_id

    @with_logs
    @timer
    def sleep(self) -> None:
        assert self.args.offload_train
        if self._asleep:
            logger.info("sleep() called while already offloaded; skipping")
            return

        clear_memory(clear_host_memory=True)
        print_memory("before offload model")
        should_log_cpu_memory = is_first_replica_megatron_main_rank() and hasattr(self, "_last_rollout_id")

        destroy_process_groups()

        if self.args.rematerialize_param_from_master_weight and self.role == "actor":
            # Params stay resident for update_weights, which pauses them afterwards.
            torch_memory_saver.pause(tag="grad_buffer")
            torch_memory_saver.pause(tag="default")
        else:
            tag = "default" if lora_rollout_enabled(self.args) else None
            torch_memory_saver.pause(tag=tag)

        self._asleep = True
        print_memory("after offload model")

        if should_log_cpu_memory:
            log_cpu_memory(self._last_rollout_id, self.args, "after_offload_train")

    @with_logs
    @timer
    def wake_up(self) -> None:
        assert self.args.offload_train
        if not self._asleep:
            logger.info("wake_up() called while already resident; ensuring process groups only")
            reload_process_groups()
            return
        print_memory("before wake_up model")

        tag = "default" if lora_rollout_enabled(self.args) else None
        torch_memory_saver.resume(tag=tag)

        clear_memory()
        reload_process_groups()
        self._asleep = False
        print_memory("after wake_up model")

    @property
    def _enable_weight_backup(self) -> bool:
        """Weight backup is only needed for CPU-side model switching or colocated tensor weight sync."""
        return self.with_ref or self.with_opd_teacher or self.args.keep_old_actor or self.args.colocate

    def _switch_model(self, target_tag: str) -> None:
        if not self._enable_weight_backup:
            return
        if target_tag not in self.weights_backuper.backup_tags:
            raise ValueError(f"Cannot switch to unknown model tag: {target_tag}")
        self.weights_backuper.restore(target_tag)
        self._active_model_tag = target_tag

    def _set_replay_stage(self, stage: str) -> None:
        for m in all_replay_managers:
            m.stage = stage

    @with_logs
    def compute_log_prob(
        self,
        data_iterator: list[DataIterator],
        num_microbatches: list[int],
        rollout_id: int,
        store_prefix: str = "",
    ) -> dict[str, list[torch.Tensor]]:

        with timer(f"{store_prefix}log_probs"):
            return forward_only(
                get_log_probs_and_entropy,
                self.args,
                self.model,
                data_iterator,
                num_microbatches,
                rollout_id=rollout_id,
                store_prefix=store_prefix,
            )

    @with_logs
    @event_logger_context(
        lambda _self, rollout_id, rollout_data_ref, witness_info=None, attempt=0, external_data=None: dict(
            rollout_id=rollout_id, attempt=attempt
        )
    )
    def train(
        self,
        rollout_id: int,
        rollout_data_ref: Box,
        witness_info: WitnessInfo | None = None,
        attempt: int = 0,
        external_data=None,
    ):
        self._heartbeat.bump()
        self._last_rollout_id = rollout_id
        if self.args.offload_train and self._asleep:
            self.wake_up()

        with ExitStack() as stack:
            with timer("data_preprocess"):
                rollout_data, store_get_result = get_rollout_data(
                    self.args, rollout_data_ref, witness_info=witness_info
                )
                stack.enter_context(store_get_result)
                if self.args.debug_rollout_only:
                    log_rollout_data(rollout_id, self.args, rollout_data)
                    return TrainStepOutcome.NORMAL

            if self.role == "critic":
                with timer("critic_train"):
                    result = self.train_critic(rollout_id, rollout_data)
            else:
                result = self.train_actor(
                    rollout_id,
                    rollout_data,
                    external_data=external_data,
                    witness_info=witness_info,
                    attempt=attempt,
                )

            return result

    @with_logs
    def train_critic(self, rollout_id: int, rollout_data: RolloutBatch) -> dict:
        # Create data iterator for log_probs and train.
        data_iterator, num_microbatches = get_data_iterator(self.args, self.model, rollout_data)
        rollout_data.update(
            forward_only(
                get_values,
                self.args,
                self.model,
                data_iterator,
                num_microbatches,
                rollout_id=rollout_id,
            )
        )

        compute_advantages_and_returns(self.args, rollout_data)

        self.args.loss_type = "value_loss"
        train_step_outcome: TrainStepOutcome = train(
            rollout_id,
            self.model,
            self.optimizer,
            self.opt_param_scheduler,
            data_iterator,
            num_microbatches,
            get_num_rollouts(self.args, rollout_data, len(num_microbatches)),
            witness_info=None,
            attempt=0,
        )

        self._heartbeat.bump()
        result = {"train_step_outcome": train_step_outcome}
        if get_parallel_state().is_pp_last_stage and "values" in rollout_data:
            # Ship by object reference
            result["values"] = Box(ray.put([value.detach().cpu() for value in rollout_data["values"]]))
        return result

    def _use_rollout_replay(self, m) -> bool:
        return getattr(self.args, f"use_rollout_{m.name}_replay", False)

    @with_logs
    def train_actor(
        self,
        rollout_id: int,
        rollout_data: RolloutBatch,
        external_data=None,
        *,
        witness_info: WitnessInfo | None,
        attempt: int,
    ) -> TrainStepOutcome:
        # Create data iterator for log_probs and train.
        data_iterator, num_microbatches = get_data_iterator(self.args, self.model, rollout_data)
        num_optimizer_steps = len(num_microbatches)
        skip_actor_forward_only = self.args.skip_actor_forward_only
        if skip_actor_forward_only:
            option = "--skip-actor-forward-only"
            assert num_optimizer_steps == 1, f"{option} requires 1 optimizer step, got {num_optimizer_steps}"
            assert rollout_data.get("log_probs") is None, f"{option} requires rollout data without actor log probs"

        for m in all_replay_managers:
            if self._use_rollout_replay(m):
                fill_replay_data(
                    args=self.args,
                    models=self.model,
                    data_iterator=data_iterator,
                    num_microbatches=num_microbatches,
                    rollout_data=rollout_data,
                    data_key=m.data_key,
                    replay_list=m.replays,
                    register_replay_list_func=m.register_replay_list_func,
                    if_sp_region=m.if_sp_region,
                    indices_are_token_positions=m.replay_indices_are_token_positions,
                )

        with inverse_timer("train_wait"), timer("train"):
            if self.args.compute_advantages_and_returns:
                if "ref" in self.weights_backuper.backup_tags:
                    self._set_replay_stage("fallthrough")
                    self._switch_model("ref")
                    rollout_data.update(
                        self.compute_log_prob(
                            data_iterator,
                            num_microbatches,
                            rollout_id=rollout_id,
                            store_prefix="ref_",
                        )
                    )
                # Forward teacher model to get teacher_log_probs for Megatron-based OPD
                if "teacher" in self.weights_backuper.backup_tags:
                    self._set_replay_stage("fallthrough")
                    self._switch_model("teacher")
                    rollout_data.update(
                        self.compute_log_prob(
                            data_iterator,
                            num_microbatches,
                            rollout_id=rollout_id,
                            store_prefix="teacher_",
                        )
                    )
                self._switch_model("old_actor" if self.args.keep_old_actor else "actor")
                if not skip_actor_forward_only and (
                    not self.args.use_rollout_logprobs or self.args.get_mismatch_metrics
                ):
                    for m in all_replay_managers:
                        if m.enabled:
                            if self._use_rollout_replay(m):
                                m.stage = "replay_forward"
                            else:
                                m.stage = "record"
                    rollout_data.update(
                        self.compute_log_prob(
                            data_iterator,
                            num_microbatches,
                            rollout_id=rollout_id,
                            store_prefix="",
                        )
                    )
                    for m in all_replay_managers:
                        if self._use_rollout_replay(m):
                            m.clear_all_forward()

                if self.args.use_critic:
                    if external_data is not None and get_parallel_state().is_pp_last_stage:
                        values_ref = external_data.get("values")
                        assert values_ref is not None, (
                            "actor and critic share the same parallel topology, so the critic rank "
                            "paired with a pp-last-stage actor rank must have shipped 'values'"
                        )
                        rollout_data["values"] = [
                            value.to(device=torch.cuda.current_device(), non_blocking=True)
                            for value in ray.get(values_ref.inner)
                        ]
                if self._active_model_tag != "actor":
                    self._switch_model("actor")

                # Calculate adv and returns. Need to performed before training (instead of on the fly),
                # because we may need normalize the whole rollout.
                compute_advantages_and_returns(self.args, rollout_data)
                log_train_advantage_computation_event(rollout_data)

            if self.rollout_data_postprocess is not None:
                self.rollout_data_postprocess(self.args)

            log_rollout_data(rollout_id, self.args, rollout_data)

            # Train
            num_rollouts = get_num_rollouts(self.args, rollout_data, num_optimizer_steps)
            self._set_replay_stage("replay_backward")
            with timer("actor_train"):
                train_step_outcome = train(
                    rollout_id,
                    self.model,
                    self.optimizer,
                    self.opt_param_scheduler,
                    data_iterator,
                    num_microbatches,
                    num_rollouts,
                    witness_info=witness_info,
                    attempt=attempt,
                    ft_test_action_executor=self._ft_test_action_executor,
                )

            self.prof.step(rollout_id=rollout_id)

        train_dump_utils.save_debug_train_data(self.args, rollout_id=rollout_id, rollout_data=rollout_data)

        for m in all_replay_managers:
            if m.enabled:
                m.clear_all()

        if train_step_outcome == TrainStepOutcome.NORMAL:
            # update the cpu actor weight to the latest model
            if self._enable_weight_backup:
                self.weights_backuper.backup("actor")
            else:
                torch.cuda.synchronize()

            # Update ref model if needed
            if (
                self.args.ref_update_interval is not None
                and (rollout_id + 1) % self.args.ref_update_interval == 0
                and "ref" in self.weights_backuper.backup_tags
            ):
                with timer("ref_model_update"):
                    if is_first_replica_megatron_main_rank():
                        logger.info(f"Updating ref model at rollout_id {rollout_id}")
                    self.weights_backuper.backup("ref")

        if train_step_outcome == TrainStepOutcome.NORMAL and is_multi_lora_enabled(self.args):
            from miles.backends.megatron_utils.multi_lora_utils import commit_trained_batch

            commit_trained_batch(rollout_data, rollout_id, self._multi_lora_pending_push)

        log_perf_data(rollout_id, self.args, extra_metrics=self.weight_updater.pop_metrics())

        self._heartbeat.bump()
        return train_step_outcome

    @with_logs
    @timer
    def reconcile_adapters(self) -> None:
        """Load adapters the controller wants served; retire deregistered ones, dropping their untrained tail."""
        if not is_multi_lora_enabled(self.args):
            return
        from miles.backends.megatron_utils.multi_lora_utils import cleanup_adapters as _cleanup_adapters
        from miles.backends.megatron_utils.multi_lora_utils import load_adapters as _load_adapters
        from miles.ray.multi_lora.controller import get_multi_lora_controller

        broadcast_buffer = [None]
        if is_first_replica_megatron_main_rank():
            controller = get_multi_lora_controller()
            ray.get(controller.retire_adapters.remote())
            broadcast_buffer[0] = ray.get(controller.snapshot.remote())
        if dist.is_initialized():
            dist.broadcast_object_list(broadcast_buffer, src=0, group=get_gloo_group())
        snapshot = broadcast_buffer[0]
        should_be_loaded = {**snapshot["active"], **snapshot["pending"], **snapshot["retiring"]}
        cleanup_names = set(snapshot["cleanup"])

        loaded_names = set(self.loaded_adapters)
        # Sorted so per-adapter collectives (checkpoint export) run in the same
        # order on every rank; set iteration order is process-specific.
        adapters_to_load = sorted(
            (adapter for name, adapter in should_be_loaded.items() if name not in loaded_names),
            key=lambda adapter: adapter.name,
        )
        adapters_to_clean_up = sorted(
            (self.loaded_adapters[n] for n in loaded_names if n in cleanup_names or n not in should_be_loaded),
            key=lambda adapter: adapter.name,
        )
        if adapters_to_load:
            _load_adapters(self.args, self.model, self.optimizer, adapters_to_load)
            for adapter in adapters_to_load:
                self.loaded_adapters[adapter.name] = adapter
                self._multi_lora_pending_push.add(adapter.name)
            self.weights_backuper.backup("actor")
        if adapters_to_clean_up:
            _cleanup_adapters(self.args, self.model, self.optimizer, adapters_to_clean_up)
            for adapter in adapters_to_clean_up:
                self.loaded_adapters.pop(adapter.name, None)
                self._multi_lora_pending_push.discard(adapter.name)
            self.weights_backuper.backup("actor")

        # Deregistered before ever being loaded: nothing to save or clear.
        if is_first_replica_megatron_main_rank():
            for name in cleanup_names - loaded_names:
                ray.get(get_multi_lora_controller().free_slot.remote(name))

    @timer
    def save_model(self, rollout_id: int, force_sync: bool = False) -> None:
        self._heartbeat.bump()
        if self.args.debug_rollout_only:
            return

        if self.args.async_save:
            from megatron.training.async_utils import maybe_finalize_async_save

            maybe_finalize_async_save(blocking=True)

        if is_multi_lora_enabled(self.args):
            from miles.backends.megatron_utils.multi_lora_utils import save_due_adapter_checkpoints

            if not save_due_adapter_checkpoints(self.args, self.model):
                return
        else:
            save(rollout_id, self.model, self.optimizer, self.opt_param_scheduler)

        if force_sync and self.args.async_save:
            maybe_finalize_async_save(blocking=True)

        if self.args.save_hf is not None and self.role == "actor":
            from miles.backends.megatron_utils.hf_export import save_hf_model

            save_hf_model(self.args, rollout_id, self.model)

        if self.args.custom_megatron_post_save_hook_path is not None and dist.get_rank() == 0:
            if self.args.async_save:
                maybe_finalize_async_save(blocking=True)

            from megatron.training.checkpointing import get_checkpoint_name

            from miles.utils.misc import load_function

            checkpoint_dir = get_checkpoint_name(self.args.save, rollout_id, return_base_dir=True)
            hf_checkpoint_dir = (
                self.args.save_hf.format(rollout_id=rollout_id)
                if self.args.save_hf is not None and self.role == "actor"
                else None
            )
            post_save_hook = load_function(self.args.custom_megatron_post_save_hook_path)
            post_save_hook(self.args, rollout_id, checkpoint_dir, hf_checkpoint_dir)

    @with_logs
    @timer
    def export_hf(self, rollout_id: int, path: str) -> None:
        """Export current weights as an HF checkpoint to ``path`` (collective).

        Uses the direct megatron->HF converters (the weight updater's machinery), so
        export coverage matches weight-sync coverage. Unlike the periodic --save-hf
        path inside save_model, failures propagate to the caller so an eval snapshot
        that failed to export can be skipped loudly.
        """
        self._heartbeat.bump()
        from miles.backends.megatron_utils.hf_export import save_hf_model

        save_hf_model(self.args, rollout_id, self.model, path=path, raise_on_error=True)

    @with_logs
    @timer
    def update_weights(self, info: "EnginesAndLock") -> None:
        self._heartbeat.bump()
        if self.args.debug_train_only or self.args.debug_rollout_only:
            return

        rollout_engines = info.rollout_engines
        rollout_engine_lock = info.rollout_engine_lock
        has_new_engines = info.has_new_engines
        engine_gpu_counts = info.engine_gpu_counts
        engine_gpu_offsets = info.engine_gpu_offsets
        del info

        process_groups_are_temporary = self.args.offload_train and self._asleep
        if process_groups_are_temporary:
            reload_process_groups()

        if has_new_engines or not self.weight_updater.is_rollout_engines_fresh():
            self.weight_updater.connect_rollout_engines(
                rollout_engines,
                rollout_engine_lock,
                engine_gpu_counts=engine_gpu_counts,
                engine_gpu_offsets=engine_gpu_offsets,
            )
            dist.barrier(group=get_gloo_group())
            if dist.get_rank() == 0:
                ray.get(self.rollout_manager.clear_updatable_has_new_engines.remote())

        if self.args.debug_skip_weight_update:
            if dist.get_rank() == 0:
                logger.warning("Skipping actor-to-rollout weight update because " "--debug-skip-weight-update is set.")
            if self.args.rematerialize_param_from_master_weight:
                torch_memory_saver.pause(tag="param_buffer")
            if process_groups_are_temporary:
                destroy_process_groups()
            return

        version_update_names: list[str] = []
        if is_multi_lora_enabled(self.args):
            from miles.backends.megatron_utils.multi_lora_utils import select_adapters_to_push

            self.weight_updater.multi_lora_adapters, version_update_names = select_adapters_to_push(
                self.loaded_adapters, self._multi_lora_pending_push, has_new_engines
            )

        with torch_memory_saver.disable() if self.args.offload_train else nullcontext():
            print_memory("before update_weights")
            self.weight_updater.update_weights()
            print_memory("after update_weights")
            if dist.get_rank() == 0:
                ray.get(self.rollout_manager.set_weight_version.remote(self.weight_updater.weight_version))

            if is_multi_lora_enabled(self.args):
                from miles.backends.megatron_utils.multi_lora_utils import commit_weight_push

                self._multi_lora_pending_push.clear()
                commit_weight_push(version_update_names, self._is_first_replica_megatron_main_rank)

            if self.args.ci_test and len(rollout_engines) > 0 and not is_lora_enabled(self.args):
                engine = random.choice(rollout_engines)
                engine_version = ray.get(engine.get_weight_version.remote())
                if str(engine_version) != str(self.weight_updater.weight_version):
                    raise RuntimeError(
                        f"Weight version mismatch! Engine: {engine_version}, Updater: {self.weight_updater.weight_version}"
                    )

            if getattr(self.args, "keep_old_actor", False):
                if self.args.update_weights_interval == 1:
                    logger.info("updating model queue: rollout_actor -> old_actor, actor -> rollout_actor")
                    # Queue-style update: rollout_actor params -> old_actor, actor params -> rollout_actor
                    # First copy rollout_actor to old_actor
                    self.weights_backuper.copy(src_tag="rollout_actor", dst_tag="old_actor")
                    # Then copy current actor to rollout_actor
                    self.weights_backuper.backup("rollout_actor")
                else:
                    self.weights_backuper.backup("old_actor")

        if self.args.rematerialize_param_from_master_weight:
            torch_memory_saver.pause(tag="param_buffer")
        if process_groups_are_temporary:
            destroy_process_groups()

    @with_logs
    def load_other_checkpoint(self, model_tag: str, path: str) -> None:
        old_args = self.args.load, self.args.no_load_optim, self.args.no_load_rng, self.args.finetune
        self.args.load = path
        self.args.no_load_optim = True
        self.args.no_load_rng = True
        self.args.finetune = True

        # load_checkpoint reads self.args.ckpt_step to pick which iteration to load.
        # Temporarily override it for ref/teacher loads, then restore after the load below.
        if model_tag == "ref" and self.args.ref_ckpt_step is not None:
            old_ckpt_step = self.args.ckpt_step
            self.args.ckpt_step = self.args.ref_ckpt_step

        if model_tag == "teacher" and self.args.opd_teacher_ckpt_step is not None:
            old_ckpt_step = self.args.ckpt_step
            self.args.ckpt_step = self.args.opd_teacher_ckpt_step

        _, _ = load_checkpoint(
            self.model,
            None,
            None,
            checkpointing_context={},
            skip_load_to_model_and_opt=False,
        )
        self.args.load, self.args.no_load_optim, self.args.no_load_rng, self.args.finetune = old_args

        if model_tag == "ref" and self.args.ref_ckpt_step is not None:
            self.args.ckpt_step = old_ckpt_step

        if model_tag == "teacher" and self.args.opd_teacher_ckpt_step is not None:
            self.args.ckpt_step = old_ckpt_step

        self.weights_backuper.backup(model_tag)
        self._active_model_tag = model_tag

    @with_logs
    def send_ckpt(self, dst_rank: int) -> None:
        # These states are not handled
        assert not self.args.keep_old_actor

        _send_ckpt(
            indep_dp=get_parallel_state().indep_dp,
            model=self.model,
            optimizer=self.optimizer,
            opt_param_scheduler=self.opt_param_scheduler,
            iteration=self._last_rollout_id,
            dst_rank=dst_rank,
        )

    @with_logs
    def reconfigure_indep_dp(self, indep_dp_info: IndepDPInfo) -> None:
        reconfigure_indep_dp_group(
            parallel_state=get_parallel_state(),
            store_addr=self._indep_dp_store_addr,
            indep_dp_info=indep_dp_info,
            megatron_rank=dist.get_rank(),
            megatron_world_size=dist.get_world_size(),
        )
        self.weight_updater.mark_engine_connection_stale()

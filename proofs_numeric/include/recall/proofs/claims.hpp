// Registration entry points of the claim checks: one per section file
// proofs_numeric/<paper>/<section>.cpp, named register_<paper>_<section>; each registers the checks
// of its spec IDs (one function per ID, named after it) with the ledger, recording the call site.
// register_builtin_claims() (support/ledger.cpp) calls them in the order below, which is the
// ledger's (and the report's) order.
#pragma once

#include "recall/proofs/ledger.hpp"

namespace recall {
// a000_associative_memory/
void register_a000_outer_product_memories(Ledger& l);  // proofs_numeric/a000_associative_memory/outer_product_memories.cpp
// a001_test_time_regression/
void register_a001_linear_attention(Ledger& l);  // proofs_numeric/a001_test_time_regression/linear_attention.cpp
void register_a001_feature_maps(Ledger& l);  // proofs_numeric/a001_test_time_regression/feature_maps.cpp
void register_a001_gated_linear_attention(Ledger& l);  // proofs_numeric/a001_test_time_regression/gated_linear_attention.cpp
void register_a001_one_gd_step(Ledger& l);  // proofs_numeric/a001_test_time_regression/one_gd_step.cpp
void register_a001_output_growth(Ledger& l);  // proofs_numeric/a001_test_time_regression/output_growth.cpp
void register_a001_output_norms(Ledger& l);  // proofs_numeric/a001_test_time_regression/output_norms.cpp
void register_a001_gated_model_list(Ledger& l);  // proofs_numeric/a001_test_time_regression/gated_model_list.cpp
void register_a001_ls_equivalence_rows(Ledger& l);  // proofs_numeric/a001_test_time_regression/ls_equivalence_rows.cpp
void register_a001_gated_equivalence_row(Ledger& l);  // proofs_numeric/a001_test_time_regression/gated_equivalence_row.cpp
// a004_memory_and_forgetting/
void register_a004_attention_cost(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/attention_cost.cpp
void register_a004_kernelised_attention(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/kernelised_attention.cpp
void register_a004_linear_attention_state(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/linear_attention_state.cpp
void register_a004_fast_weight_programmers(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/fast_weight_programmers.cpp
void register_a004_online_update_mamba2(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/online_update_mamba2.cpp
void register_a004_ttt_theorem1(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/ttt_theorem1.cpp
void register_a004_ttt_theorem1_proof(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/ttt_theorem1_proof.cpp
// a000_associative_memory/
void register_a000_gradient_view(Ledger& l);  // proofs_numeric/a000_associative_memory/gradient_view.cpp
void register_a000_general_objective(Ledger& l);  // proofs_numeric/a000_associative_memory/general_objective.cpp
void register_a000_table2_objectives(Ledger& l);  // proofs_numeric/a000_associative_memory/table2_objectives.cpp
void register_a000_table2_softmax_norm(Ledger& l);  // proofs_numeric/a000_associative_memory/table2_softmax_norm.cpp
void register_a000_delta_rule_memory(Ledger& l);  // proofs_numeric/a000_associative_memory/delta_rule_memory.cpp
void register_a000_softmax_objective(Ledger& l);  // proofs_numeric/a000_associative_memory/softmax_objective.cpp
// a001_test_time_regression/
void register_a001_sgd_deltanet(Ledger& l);  // proofs_numeric/a001_test_time_regression/sgd_deltanet.cpp
void register_a001_online_learners(Ledger& l);  // proofs_numeric/a001_test_time_regression/online_learners.cpp
void register_a001_recursive_least_squares(Ledger& l);  // proofs_numeric/a001_test_time_regression/recursive_least_squares.cpp
void register_a001_ttt_layers(Ledger& l);  // proofs_numeric/a001_test_time_regression/ttt_layers.cpp
void register_a001_leaky_lms_gdn(Ledger& l);  // proofs_numeric/a001_test_time_regression/leaky_lms_gdn.cpp
// a004_memory_and_forgetting/
void register_a004_delta_rule_equations(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/delta_rule_equations.cpp
void register_a004_delta_rule_fwp(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/delta_rule_fwp.cpp
void register_a004_online_updates_delta(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/online_updates_delta.cpp
void register_a004_online_objectives(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/online_objectives.cpp
void register_a004_gd_step_views(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/gd_step_views.cpp
// a000_associative_memory/
void register_a000_softmax_exp_kernel(Ledger& l);  // proofs_numeric/a000_associative_memory/softmax_exp_kernel.cpp
void register_a000_retrieval_snr(Ledger& l);  // proofs_numeric/a000_associative_memory/retrieval_snr.cpp
void register_a000_capacity(Ledger& l);  // proofs_numeric/a000_associative_memory/capacity.cpp
void register_a000_orthonormal_recall(Ledger& l);  // proofs_numeric/a000_associative_memory/orthonormal_recall.cpp
void register_a000_norm_growth(Ledger& l);  // proofs_numeric/a000_associative_memory/norm_growth.cpp
void register_a000_ffn_memories(Ledger& l);  // proofs_numeric/a000_associative_memory/ffn_memories.cpp
void register_a000_sparse_attention_memories(Ledger& l);  // proofs_numeric/a000_associative_memory/sparse_attention_memories.cpp
void register_a000_multihead_noise(Ledger& l);  // proofs_numeric/a000_associative_memory/multihead_noise.cpp
void register_a000_regularisation_claims(Ledger& l);  // proofs_numeric/a000_associative_memory/regularisation_claims.cpp
void register_a000_optimal_memory(Ledger& l);  // proofs_numeric/a000_associative_memory/optimal_memory.cpp
void register_a000_icl_convergence(Ledger& l);  // proofs_numeric/a000_associative_memory/icl_convergence.cpp
void register_a000_stress_experiment(Ledger& l);  // proofs_numeric/a000_associative_memory/section3_stress.cpp
void register_a000_swap_task_experiments(Ledger& l);  // proofs_numeric/a000_associative_memory/swap_task_experiments.cpp
void register_a004_lstm(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/lstm.cpp
void register_a004_softmax_cost(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/softmax_cost.cpp
void register_a004_attention_parallel_depth(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/attention_parallel_depth.cpp
void register_a004_write_remove_forget(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/write_remove_forget.cpp
void register_a004_ttt_sample_efficiency(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/ttt_sample_efficiency.cpp
void register_a000_snr_exponential_kernels(Ledger& l);  // proofs_numeric/a000_associative_memory/snr_exponential_kernels.cpp
void register_a000_deltaformer_forms(Ledger& l);  // proofs_numeric/a000_associative_memory/deltaformer_forms.cpp
void register_a000_normalised_deltaformer(Ledger& l);  // proofs_numeric/a000_associative_memory/normalised_deltaformer.cpp
void register_a000_chunked_listing1(Ledger& l);  // proofs_numeric/a000_associative_memory/chunked_listing1.cpp
void register_a000_triangular_inverse(Ledger& l);  // proofs_numeric/a000_associative_memory/triangular_inverse.cpp
void register_a000_deltaformer_complexity(Ledger& l);  // proofs_numeric/a000_associative_memory/deltaformer_complexity.cpp
void register_a000_perturbation(Ledger& l);  // proofs_numeric/a000_associative_memory/perturbation.cpp
void register_a000_dag_reachability(Ledger& l);  // proofs_numeric/a000_associative_memory/dag_reachability.cpp
void register_a000_listing2_toy(Ledger& l);  // proofs_numeric/a000_associative_memory/listing2_toy.cpp
void register_a000_theorem1_assumptions(Ledger& l);  // proofs_numeric/a000_associative_memory/theorem1_assumptions.cpp
void register_a000_theorem1_state_exchange(Ledger& l);  // proofs_numeric/a000_associative_memory/theorem1_state_exchange.cpp
void register_a000_theorem1_gqa_space(Ledger& l);  // proofs_numeric/a000_associative_memory/theorem1_gqa_space.cpp
// a001_test_time_regression/
void register_a001_similarity_functions(Ledger& l);  // proofs_numeric/a001_test_time_regression/similarity_functions.cpp
void register_a001_softmax_nadaraya_watson(Ledger& l);  // proofs_numeric/a001_test_time_regression/softmax_nadaraya_watson.cpp
void register_a001_unnormalized_softmax(Ledger& l);  // proofs_numeric/a001_test_time_regression/unnormalized_softmax.cpp
void register_a001_qknorm(Ledger& l);  // proofs_numeric/a001_test_time_regression/qknorm.cpp
// a004_memory_and_forgetting/
void register_a004_classical_hopfield(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/classical_hopfield.cpp
void register_a004_softmax_attention(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/softmax_attention.cpp
// a001_test_time_regression/ (topic T4: test-time regression)
void register_a001_regression_framework(Ledger& l);  // proofs_numeric/a001_test_time_regression/regression_framework.cpp
void register_a001_ttr_perfect_recall(Ledger& l);  // proofs_numeric/a001_test_time_regression/ttr_perfect_recall.cpp
void register_a001_least_squares(Ledger& l);  // proofs_numeric/a001_test_time_regression/least_squares.cpp
void register_a001_linattn_as_regression(Ledger& l);  // proofs_numeric/a001_test_time_regression/linattn_as_regression.cpp
void register_a001_feature_least_squares(Ledger& l);  // proofs_numeric/a001_test_time_regression/feature_least_squares.cpp
void register_a001_weighted_ls_weights(Ledger& l);  // proofs_numeric/a001_test_time_regression/weighted_ls_weights.cpp
void register_a001_weighted_least_squares(Ledger& l);  // proofs_numeric/a001_test_time_regression/weighted_least_squares.cpp
void register_a001_wls_underdetermined(Ledger& l);  // proofs_numeric/a001_test_time_regression/wls_underdetermined.cpp
void register_a001_gated_linattn_as_wls(Ledger& l);  // proofs_numeric/a001_test_time_regression/gated_linattn_as_wls.cpp
void register_a001_norm_bound(Ledger& l);  // proofs_numeric/a001_test_time_regression/norm_bound.cpp
void register_a001_appendix_a_steps(Ledger& l);  // proofs_numeric/a001_test_time_regression/appendix_a_steps.cpp
void register_a001_full_batch_gd(Ledger& l);  // proofs_numeric/a001_test_time_regression/full_batch_gd.cpp
void register_a001_newton_step(Ledger& l);  // proofs_numeric/a001_test_time_regression/newton_step.cpp
void register_a001_kernel_regression(Ledger& l);  // proofs_numeric/a001_test_time_regression/kernel_regression.cpp
void register_a001_local_linear_attention(Ledger& l);  // proofs_numeric/a001_test_time_regression/local_linear_attention.cpp
void register_a001_local_linear_singular(Ledger& l);  // proofs_numeric/a001_test_time_regression/local_linear_singular.cpp
void register_a001_local_linear_fast_forms(Ledger& l);  // proofs_numeric/a001_test_time_regression/local_linear_fast_forms.cpp
void register_a001_short_conv_mqar(Ledger& l);  // proofs_numeric/a001_test_time_regression/short_conv_mqar.cpp
void register_a001_mqar_ls_variant(Ledger& l);  // proofs_numeric/a001_test_time_regression/mqar_ls_variant.cpp
void register_a001_mqar_capacity(Ledger& l);  // proofs_numeric/a001_test_time_regression/mqar_capacity.cpp
void register_a001_mqar_orthogonality(Ledger& l);  // proofs_numeric/a001_test_time_regression/mqar_orthogonality.cpp
void register_a001_online_regression_experiment(Ledger& l);  // proofs_numeric/a001_test_time_regression/online_regression_experiment.cpp
void register_a001_online_regression_claims(Ledger& l);  // proofs_numeric/a001_test_time_regression/online_regression_claims.cpp
// a000_associative_memory/
void register_a000_listing2_training(Ledger& l);  // proofs_numeric/a000_associative_memory/listing2_training.cpp
// a003_hopfield/ and a004 (topic T6: modern Hopfield models)
void register_a003_dense_model(Ledger& l);  // proofs_numeric/a003_hopfield/dense_model.cpp
void register_a003_dense_dynamics(Ledger& l);  // proofs_numeric/a003_hopfield/dense_dynamics.cpp
void register_a003_sparse_models(Ledger& l);  // proofs_numeric/a003_hopfield/sparse_models.cpp
void register_a003_topk_separation_fixed_points(Ledger& l);  // proofs_numeric/a003_hopfield/topk_separation_fixed_points.cpp
void register_a003_svr_retrieval(Ledger& l);  // proofs_numeric/a003_hopfield/svr_retrieval.cpp
void register_a003_svr_representer(Ledger& l);  // proofs_numeric/a003_hopfield/svr_representer.cpp
void register_a003_svr_feature_maps(Ledger& l);  // proofs_numeric/a003_hopfield/svr_feature_maps.cpp
void register_a003_appendix_c_fits(Ledger& l);  // proofs_numeric/a003_hopfield/appendix_c_fits.cpp
void register_a003_retrieval_error_bounds(Ledger& l);  // proofs_numeric/a003_hopfield/retrieval_error_bounds.cpp
void register_a003_retrieval_corollaries(Ledger& l);  // proofs_numeric/a003_hopfield/retrieval_corollaries.cpp
void register_a003_fixed_point_convergence(Ledger& l);  // proofs_numeric/a003_hopfield/fixed_point_convergence.cpp
void register_a003_well_separation(Ledger& l);  // proofs_numeric/a003_hopfield/well_separation.cpp
void register_a003_k_monotonicity_reduction(Ledger& l);  // proofs_numeric/a003_hopfield/k_monotonicity_reduction.cpp
void register_a003_separation_geometry(Ledger& l);  // proofs_numeric/a003_hopfield/separation_geometry.cpp
void register_a003_capacity(Ledger& l);  // proofs_numeric/a003_hopfield/capacity.cpp
void register_a003_kernel_models(Ledger& l);  // proofs_numeric/a003_hopfield/kernel_models.cpp
void register_a003_complexity(Ledger& l);  // proofs_numeric/a003_hopfield/complexity.cpp
void register_a003_experiments(Ledger& l);  // proofs_numeric/a003_hopfield/experiments.cpp
void register_a004_modern_hopfield(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/modern_hopfield.cpp
void register_a004_dense_associative_capacity(Ledger& l);  // proofs_numeric/a004_memory_and_forgetting/dense_associative_capacity.cpp

// Every section above, in registration order (support/ledger.cpp).
void register_all_sections(Ledger& l);
}  // namespace recall

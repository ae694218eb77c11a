"""The exercise checker (poolgrad.exercise_check): correct answers pass, each typical
mistake fails on the case of the rule it breaks, broken code is an error with its line.

The solutions here are the ones the browser tests (tests/web/test_exercise.py) type into
the page; they live in tests/exercise_solutions.py so both layers run the same code."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from exercise_solutions import BACKWARD, CONV, FORWARD, MSE
from lesson_fixture import FIXTURE_ROWS
from poolgrad import exercise_check, exercise_run, exercises


@pytest.mark.parametrize("exercise, source", [("forward", FORWARD["loops"]), ("forward", FORWARD["numpy"]),
                                              ("backward", BACKWARD["loops"])])
def test_correct_solutions_pass(exercise, source):
    answer = exercise_check.check(source, exercise)
    assert answer["state"] == "pass", answer
    assert answer["sentence"].startswith(f"All {len(exercise_check.CASES[exercise])} cases pass")
    json.dumps(answer, allow_nan=False)


def test_the_reference_passes_its_own_checks():
    for exercise, name in exercise_check.FUNCTION_NAMES.items():
        assert exercise_check.check(f"from poolgrad.exercises import {name}", exercise)["state"] == "pass"


@pytest.mark.parametrize("exercise, source", [("conv2d_backward", CONV["scatter"]), ("conv2d_backward", CONV["full"]),
                                              ("mse_loss_backward", MSE["right"])],
                         ids=["conv-scatter", "conv-full", "mse"])
def test_correct_chain_solutions_pass(exercise, source):
    answer = exercise_check.check(source, exercise)
    assert answer == {"state": "pass", "exercise": exercise, "sentence": {
        "conv2d_backward": "All 8 cases pass: the lesson's example, the flipped filter, a 1 x 1 filter, a filter as "
                           "big as its input, negative values, non-square inputs, decimals, random inputs.",
        "mse_loss_backward": "All 8 cases pass: the lesson's example, the mean, the sign, a perfect prediction, one "
                             "cell, non-square inputs, decimals, random inputs."}[exercise]}


def test_the_conv_cases_start_from_the_lesson_s_recorded_example():
    with np.load(Path(__file__).resolve().parents[1] / "data" / "golden.npz") as golden:
        first = exercise_check.CASES["conv2d_backward"][0]
        assert first.x.tolist() == golden["lesson/x"][0].tolist()
        assert first.w.tolist() == golden["lesson/weight"][0, 0].tolist()
        assert first.grad_output.tolist() == golden["lesson/ramp"][0].tolist()
        assert first.expected[0].tolist() == golden["lesson/grad_weight"][0, 0].tolist()
        assert first.expected[1].tolist() == golden["lesson/grad_input"][0].tolist()
    shapes = {(case.rule, case.w.shape, case.x.shape) for case in exercise_check.CASES["conv2d_backward"]}
    assert ("one-by-one", (1, 1), (3, 4)) in shapes and ("whole-filter", (3, 3), (3, 3)) in shapes
    assert ("non-square", (2, 3), (4, 6)) in shapes
    assert any((case.x < 0).any() and (case.w < 0).any() and (case.grad_output < 0).any()
               for case in exercise_check.CASES["conv2d_backward"])


def test_unweighted_weight_gradient_marks_every_dl_dw_cell_and_no_dl_dx_cell():
    answer = exercise_check.check(CONV["unweighted"], "conv2d_backward")
    assert (answer["state"], answer["rule"]) == ("fail", "example")
    assert answer["sentence"] == ("Case 1 of 8 fails on the lesson's example. 9 cells differ from the reference "
                                  "(9 of dL/dW): the case is shown below, wrong cells marked.")
    # The windows summed without their gradient: x's 3 x 3 windows added up.
    assert answer["case"]["got"]["grad_w"] == [[29, 39, 38], [29, 41, 39], [22, 28, 28]]
    assert answer["case"]["expected"]["grad_w"] == [[171, 232, 184], [125, 156, 166], [98, 127, 147]]
    assert answer["case"]["got"]["grad_x"] == answer["case"]["expected"]["grad_x"]
    assert answer["mismatches"][:2] == [{"grid": "grad-weight", "row": 0, "col": 0, "expected": 171.0, "got": 29.0},
                                        {"grid": "grad-weight", "row": 0, "col": 1, "expected": 232.0, "got": 39.0}]
    assert {(m["grid"], m["row"], m["col"]) for m in answer["mismatches"]} == {
        ("grad-weight", r, c) for r in range(3) for c in range(3)}
    json.dumps(answer, allow_nan=False)


def test_a_filter_flipped_one_way_fails_on_the_asymmetric_filter():
    answer = exercise_check.check(CONV["columns_flipped"], "conv2d_backward")
    assert (answer["state"], answer["rule"]) == ("fail", "flip")
    assert answer["sentence"].startswith("Case 2 of 8 fails on the flipped filter: dL/dX correlates dL/dY with w "
                                         "turned 180° (both axes)")
    assert "14 cells differ from the reference (14 of dL/dX)" in answer["sentence"]
    case = answer["case"]
    assert case["w"] == [[1, 2], [3, 4]]
    # dL/dX[0][0] meets only w[0][0] (output (0, 0)'s top left): 1 * 1; the mistake uses w[0][1].
    assert answer["mismatches"][0] == {"grid": "grad-input", "row": 0, "col": 0, "expected": 1.0, "got": 3.0}
    for wrong in answer["mismatches"]:
        assert wrong["grid"] == "grad-input"
        assert case["expected"]["grad_x"][wrong["row"]][wrong["col"]] == wrong["expected"]
        assert case["got"]["grad_x"][wrong["row"]][wrong["col"]] == wrong["got"]


@pytest.mark.parametrize("mistake, sentence", [
    ("swapped", "Case 1 of 8 fails on the output's shape. dL/dW comes first, shaped like w (3 x 3), then dL/dX, "
                "shaped like x (5 x 5); yours are the other way round: return grad_w, grad_x."),
    ("as_list", "Case 1 of 8 fails on the return type. conv2d_backward must return two grids, grad_w, grad_x (a "
                "tuple); yours returned one grid."),
])
def test_conv_return_mistakes_say_what_to_return(mistake, sentence):
    answer = exercise_check.check(CONV[mistake], "conv2d_backward")
    assert answer["state"] == "fail" and answer["sentence"] == sentence and answer["mismatches"] == []


def test_conv_wrong_tuples_and_shapes_are_named():
    head = "from poolgrad.exercises import conv2d_backward as right\ndef conv2d_backward(x, w, grad_output):\n"

    def sentence(body):
        return exercise_check.check(head + body, "conv2d_backward")["sentence"].split(". ", 1)[1]

    assert sentence("    return right(x, w, grad_output) + (1,)\n") == (
        "conv2d_backward must return two grids, grad_w, grad_x; yours returned 3 items.")
    assert sentence("    return right(x, w, grad_output)[:1]\n") == (
        "conv2d_backward must return two grids, grad_w, grad_x; yours returned 1 item.")
    assert sentence("    return None\n") == "conv2d_backward must return two grids, grad_w, grad_x (a tuple); yours returned NoneType."
    assert sentence("    gw, gx = right(x, w, grad_output)\n    return gw, gx[1:]\n") == (
        "grad_x (dL/dX) should be 5 x 5, the shape of x; yours is 4 x 5.")
    assert sentence("    gw, gx = right(x, w, grad_output)\n    return gw, 'gx'\n") == (
        "grad_x (dL/dX) must be a NumPy array (or a list of rows); yours is str.")
    assert sentence("    gw, gx = right(x, w, grad_output)\n    return gw > 0, gx\n") == (
        "grad_w should hold numbers; yours has dtype bool.")
    assert sentence("    gw, gx = right(x, w, grad_output)\n    return gw.tolist(), [[1, 2], [3]]\n") == (
        "grad_x (dL/dX) should be 5 x 5, the shape of x; yours is 2 rows of different lengths.")
    assert sentence("    gw, gx = right(x, w, grad_output)\n    return gw, []\n") == (
        "grad_x (dL/dX) should be 5 x 5, the shape of x; yours is 0 x 0.")
    # Lists of rows are grids too, and an answer within 1e-9 of the reference passes.
    assert exercise_check.check(head + "    gw, gx = right(x, w, grad_output)\n"
                                       "    return (gw * (1 + 1e-12)).tolist(), gx.tolist()\n",
                                "conv2d_backward")["state"] == "pass"
    nan = exercise_check.check(head + "    gw, gx = right(x, w, grad_output)\n    gx[0, 0] = float('nan')\n"
                                      "    return gw, gx\n", "conv2d_backward")
    assert nan["mismatches"] == [{"grid": "grad-input", "row": 0, "col": 0, "expected": 1.0, "got": "NaN"}]


@pytest.mark.parametrize("mistake, rule, first_wrong, count", [
    ("no_mean", "example", {"row": 0, "col": 0, "expected": 1.0, "got": 4.0}, 3),
    ("square_only", "mean", {"row": 0, "col": 0, "expected": 1 / 3, "got": 0.5}, 6),
])
def test_mse_mistakes_mark_the_wrong_gradient_cells(mistake, rule, first_wrong, count):
    answer = exercise_check.check(MSE[mistake], "mse_loss_backward")
    assert (answer["state"], answer["rule"]) == ("fail", rule)
    assert f"{count} cells differ from the reference: the case is shown below, wrong cells marked." in answer["sentence"]
    assert answer["mismatches"][0] == {"grid": "grad-prediction", **first_wrong}
    assert len(answer["mismatches"]) == count
    case = answer["case"]
    assert case["expected"] == exercises.mse_loss_backward(case["prediction"], case["target"]).tolist()


def test_returning_the_loss_says_the_gradient_has_one_value_per_cell():
    answer = exercise_check.check(MSE["the_loss"], "mse_loss_backward")
    assert answer["sentence"] == (
        "Case 1 of 8 fails on the return type. mse_loss_backward must return a NumPy array shaped like prediction "
        "(2 x 2), one gradient per cell; yours returned float64: the loss is one number, its gradient one per cell.")
    zero_d = exercise_check.check("import numpy as np\ndef mse_loss_backward(p, t):\n    return np.array(1.0)\n",
                                  "mse_loss_backward")
    assert zero_d["sentence"].endswith("The gradient should be 2 x 2, the shape of prediction; yours is a single "
                                       "number: the loss is one number, its gradient one per cell.")


def test_chain_exercises_report_exceptions_timeouts_and_the_starter():
    starter = exercise_check.check(CONV["starter"], "conv2d_backward")
    assert starter["state"] == "error" and starter["sentence"] == (
        "Case 1 of 8 (the lesson's example): your function still raises NotImplementedError on line 2 of your code: "
        "replace it with your code.")
    assert starter["case"]["w"] == [[1, 0, -1], [1, 0, -1], [1, 0, -1]]
    assert exercise_check.judge("mse_loss_backward", [], {"how": "timeout", "seconds": 5})["sentence"].startswith(
        "Your code was still running after 5 s, on case 1 of 8 (the lesson's example)")
    # The learner's function may scribble on its arguments: the next case still compares with the reference.
    vandal = ("def mse_loss_backward(prediction, target):\n    grad = 2 * (prediction - target) / prediction.size\n"
              "    prediction[...] = target[...] = 0\n    return grad\n")
    assert exercise_check.check(vandal, "mse_loss_backward")["state"] == "pass"
    assert exercise_check.CASES["mse_loss_backward"][0].target.tolist() == [[2, 1], [0, 3]]


@pytest.mark.parametrize("mistake, rule, first_wrong", [
    ("last_max_wins", "ties", {"row": 0, "col": 0, "expected": 1.0, "got": 0.0}),
    ("no_accumulation", "overlap", {"row": 0, "col": 1, "expected": 3.0, "got": 2.0}),
    ("no_rounding", "rounding", {"row": 0, "col": 2, "expected": 0.6667, "got": 2 / 3}),
    ("starts_from_zero", "negatives", {"row": 0, "col": 1, "expected": 1.0, "got": 0.0}),
])
def test_backward_mistakes_fail_on_their_rule(mistake, rule, first_wrong):
    answer = exercise_check.check(BACKWARD[mistake], "backward")
    assert answer["state"] == "fail"
    assert answer["rule"] == rule
    assert exercise_check.RULES[rule] in answer["sentence"]
    assert answer["mismatches"][0] == {"grid": "grad-input", **first_wrong}
    case = answer["case"]
    assert case["rule"] == rule
    # The case's expected answer is the reference's, and "got" is the learner's whole answer.
    assert case["expected"] == exercises.max_pool2d_backward(case["x"], case["grad_output"], case["pool_size"],
                                                             case["stride"])
    for wrong in answer["mismatches"]:
        assert case["got"][wrong["row"]][wrong["col"]] == wrong["got"]
        assert case["expected"][wrong["row"]][wrong["col"]] == wrong["expected"]
    json.dumps(answer, allow_nan=False)


def test_ties_sentence_names_the_reading_order_rule():
    answer = exercise_check.check(BACKWARD["last_max_wins"], "backward")
    assert answer["sentence"].startswith("Case 6 of 13 fails on ties: the first maximum in reading order wins.")
    assert answer["case"]["x"] == [[5, 5], [5, 5]]
    assert answer["mismatches"] == [
        {"grid": "grad-input", "row": 0, "col": 0, "expected": 1.0, "got": 0.0},
        {"grid": "grad-input", "row": 1, "col": 1, "expected": 0.0, "got": 1.0},
    ]


def test_off_by_one_window_fails_on_the_first_example():
    answer = exercise_check.check(FORWARD["off_by_one"], "forward")
    assert answer["state"] == "fail"
    assert answer["rule"] == "example"
    # A window one cell short misses the bottom-right cell of every 2 x 2 window.
    assert answer["case"]["expected"] == [[6, 8], [14, 16]]
    assert answer["case"]["got"] == [[1, 3], [9, 11]]
    assert [(m["row"], m["col"]) for m in answer["mismatches"]] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert {m["grid"] for m in answer["mismatches"]} == {"output"}


def test_a_float_output_fails_on_dtype_without_wrong_cells():
    answer = exercise_check.check(FORWARD["float_output"], "forward")
    assert answer["state"] == "fail"
    assert answer["rule"] == "dtype"
    assert "the output should be int64; yours is float64" in answer["sentence"]
    assert answer["mismatches"] == []


def test_python_numbers_lose_an_int8_dtype():
    # int64 and float64 inputs survive a trip through Python numbers; int8 does not.
    answer = exercise_check.check(FORWARD["python_numbers"], "forward")
    assert answer["rule"] == "dtype"
    assert answer["case"]["dtype"] == "int8"


def test_keeping_leftover_rows_fails_on_shape_for_the_leftover_rule():
    answer = exercise_check.check(FORWARD["keeps_leftover"], "forward")
    assert answer["state"] == "fail"
    assert answer["rule"] == "leftover"
    assert "The output should be 1 x 2; yours is 2 x 2." in answer["sentence"]
    assert answer["mismatches"] == []


def test_forward_starting_from_zero_fails_on_negatives():
    answer = exercise_check.check(FORWARD["starts_from_zero"], "forward")
    assert answer["rule"] == "negatives"
    assert answer["mismatches"][0] == {"grid": "output", "row": 0, "col": 0, "expected": -1, "got": 0}


def test_wrong_return_types_are_named():
    forward = exercise_check.check("def max_pool2d(image, pool_size=2):\n    return image[::2, ::2].tolist()",
                                   "forward")
    assert (forward["state"], forward["rule"]) == ("fail", "return-type")
    assert "must return a NumPy array; yours returned list" in forward["sentence"]
    backward = exercise_check.check(
        "import numpy as np\n"
        "def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):\n"
        "    return np.zeros((len(input_map), len(input_map[0])))", "backward")
    assert backward["rule"] == "return-type"
    assert "(call .tolist() on it)" in backward["sentence"]
    nothing = exercise_check.check("def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):\n"
                                   "    pass", "backward")
    assert "yours returned NoneType" in nothing["sentence"]
    strings = exercise_check.check("def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):\n"
                                   "    return [['0'] * len(row) for row in input_map]", "backward")
    assert "Row 0, col 0 of your gradient is str, not a number." in strings["sentence"]


def test_wrong_shape_backward():
    answer = exercise_check.check(BACKWARD["output_shaped"], "backward")
    assert (answer["state"], answer["rule"]) == ("fail", "shape")
    assert "should have 4 rows of 4 values, one per input cell; yours has 2 rows of 2 values" in answer["sentence"]


def test_non_finite_results_travel_as_names():
    answer = exercise_check.check(
        "import numpy as np\n"
        "def max_pool2d(image, pool_size=2):\n"
        "    return np.full((image.shape[0] // pool_size, image.shape[1] // pool_size), np.nan)", "forward")
    assert answer["rule"] == "example"
    assert answer["mismatches"][0]["got"] == "NaN"
    assert answer["case"]["got"][0][0] == "NaN"
    json.dumps(answer, allow_nan=False)


def test_huge_integers_in_a_gradient_are_a_fail_not_a_crash():
    answer = exercise_check.check("def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):\n"
                                  "    return [[10 ** 400] * len(row) for row in input_map]", "backward")
    assert answer["rule"] == "example"
    assert answer["mismatches"][0]["got"] == "Infinity"
    json.dumps(answer, allow_nan=False)


def test_a_syntax_error_reports_its_line():
    answer = exercise_check.check("import numpy as np\n\ndef max_pool2d(image, pool_size=2)\n    return image\n",
                                  "forward")
    assert answer == {"state": "error", "exercise": "forward", "line": 3,
                      "sentence": "SyntaxError on line 3 of your code: expected ':'."}


def test_an_indentation_error_reports_its_line():
    answer = exercise_check.check("def max_pool2d(image, pool_size=2):\nreturn image\n", "forward")
    assert answer["line"] == 2
    assert answer["sentence"].startswith("IndentationError on line 2 of your code: expected an indented block")


def test_an_exception_gives_its_type_message_and_line():
    answer = exercise_check.check(BACKWARD["index_error"], "backward")
    assert answer["state"] == "error"
    assert answer["line"] == 5
    assert answer["sentence"] == ("Case 1 of 13 (the lesson's example): IndexError on line 5 of your code: "
                                  "list index out of range.")
    assert answer["case"]["number"] == 1


def test_an_exception_at_import_time_and_a_missing_function():
    raised = exercise_check.check("x = 1\nraise KeyError('boom')\n", "backward")
    assert raised == {"state": "error", "exercise": "backward", "line": 2,
                      "sentence": "Running your code raised KeyError on line 2 of your code: 'boom'."}
    missing = exercise_check.check("def maxpool(image):\n    return image\n", "forward")
    assert missing["sentence"] == "Your code does not define max_pool2d; write def max_pool2d(image, pool_size=2): ..."


def test_sys_exit_in_the_learners_code_is_reported_not_obeyed():
    at_import = exercise_check.check("import sys\nsys.exit(3)\n", "forward")
    assert at_import["sentence"] == ("Your code calls sys.exit(3) on line 2 of your code, which would end Python "
                                     "before the checker calls your function: remove it.")
    in_case = exercise_check.check("import sys\ndef max_pool2d(image, pool_size=2):\n    sys.exit(0)\n", "forward")
    assert in_case["sentence"] == ("Case 1 of 13 (the lesson's example): your function calls sys.exit(0) on line 3 "
                                   "of your code, which would end Python: return the result instead.")
    in_call = exercise_check.check("def max_pool2d(image, pool_size=2):\n    raise KeyboardInterrupt\n", "forward")
    assert in_call["sentence"] == "Case 1 of 13 (the lesson's example): KeyboardInterrupt on line 2 of your code."


def test_the_starter_stub_says_to_write_the_body():
    stub = 'def max_pool2d(image, pool_size=2):\n    """Docs."""\n    raise NotImplementedError\n'
    answer = exercise_check.check(stub, "forward")
    assert answer["sentence"] == ("Case 1 of 13 (the lesson's example): your function still raises "
                                  "NotImplementedError on line 3 of your code: replace it with your code.")


def test_a_long_exception_message_is_clipped():
    answer = exercise_check.check("def max_pool2d(image, pool_size=2):\n    raise ValueError('x' * 5000)\n",
                                  "forward")
    assert len(answer["sentence"]) < 400


def test_learner_code_cannot_change_the_expected_answers():
    # The learner's function mutates its arguments; the next case and the next run still
    # compare with the reference computed before any learner code ran.
    vandal = ("def max_pool2d(image, pool_size=2):\n"
              "    image[...] = 0\n"
              "    from poolgrad.exercises import max_pool2d as reference\n"
              "    return reference(image, pool_size)\n")
    assert exercise_check.check(vandal, "forward")["rule"] == "example"
    assert exercise_check.check(FORWARD["numpy"], "forward")["state"] == "pass"
    assert exercise_check.CASES["forward"][0].x.tolist() == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12],
                                                            [13, 14, 15, 16]]


def test_every_rule_is_tested_by_a_case():
    forward_rules = {case.rule for case in exercise_check.CASES["forward"]}
    backward_rules = {case.rule for case in exercise_check.CASES["backward"]}
    assert {"example", "fixture", "negatives", "leftover", "pool-size", "non-square", "dtype"} <= forward_rules
    assert {"example", "ties", "overlap", "negatives", "leftover", "gaps", "rounding"} <= backward_rules
    dtypes = {case.x.dtype for case in exercise_check.CASES["forward"]}
    assert {np.dtype(np.int8), np.dtype(np.uint16), np.dtype(np.int32), np.dtype(np.float32)} <= dtypes
    assert {"example", "flip", "one-by-one", "whole-filter", "signs", "non-square", "decimals"} <= {
        case.rule for case in exercise_check.CASES["conv2d_backward"]}
    assert {"example", "mean", "direction", "perfect", "one-cell", "non-square", "decimals"} <= {
        case.rule for case in exercise_check.CASES["mse_loss_backward"]}
    # Every case fits the widget's grids (at most 16 x 16), so the page can load it.
    for case in exercise_check.CASES["forward"] + exercise_check.CASES["backward"]:
        assert case.x.ndim == 2 and max(case.x.shape) <= 16


def test_run_check_judges_the_reports_it_is_sent():
    reports = list(exercise_run.run(FORWARD["numpy"], "forward", exercise_check.case_inputs("forward")))
    answer = json.loads(exercise_check.run_check(json.dumps({"exercise": "forward", "reports": reports})))
    assert answer["state"] == "pass"
    assert json.loads(exercise_check.run_check("[1]"))["sentence"] == (
        "the request must be a JSON object with exercise and reports")
    # Fewer reports than cases never pass; why they stopped is the sentence.
    short = json.loads(exercise_check.run_check(json.dumps({"exercise": "forward", "reports": reports[:12],
                                                            "ended": {"how": "timeout", "seconds": 5}})))
    assert short["state"] == "timeout"
    assert short["sentence"].startswith("Your code was still running after 5 s, on case 13 of 13 (random inputs: every rule at once), so it was stopped")


def test_the_judge_compares_the_returned_data_not_the_objects_methods():
    # An ndarray subclass whose comparison, tolist and dtype lie: the data it holds is zeros.
    liar = ("import numpy as np\n"
            "from poolgrad.exercises import max_pool2d as reference\n"
            "class Liar(np.ndarray):\n"
            "    def __eq__(self, other): return np.ones(np.shape(other), bool)\n"
            "    def __ne__(self, other): return np.zeros(np.shape(other), bool)\n"
            "    def tolist(self): return self.right.tolist()\n"
            "    def __array__(self, *args, **kwargs): return self.right\n"
            "def max_pool2d(image, pool_size=2):\n"
            "    out = np.zeros_like(reference(image, pool_size)).view(Liar)\n"
            "    out.right = reference(image, pool_size)\n"
            "    return out\n")
    answer = exercise_check.check(liar, "forward")
    assert (answer["state"], answer["rule"]) == ("fail", "example")
    assert answer["mismatches"][0] == {"grid": "output", "row": 0, "col": 0, "expected": 6, "got": 0}
    # A list subclass whose rows lie the same way.
    rows = ("from poolgrad.exercises import max_pool2d_backward as reference\n"
            "class Rows(list):\n"
            "    def __iter__(self): return iter(self.right)\n"
            "    def __getitem__(self, i): return self.right[i]\n"
            "def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):\n"
            "    out = Rows([[0.0] * len(row) for row in input_map])\n"
            "    out.right = reference(input_map, grad_output, pool_size, stride)\n"
            "    return out\n")
    assert exercise_check.check(rows, "backward")["rule"] == "example"


def test_forged_reports_never_pass():
    right = list(exercise_run.run(FORWARD["numpy"], "forward", exercise_check.case_inputs("forward")))
    forged = ['{"returned": {"kind": "ndarray", "type": "ndarray", "shape": [2, 2], "dtype": "<i8", "values": "x"}}']
    assert exercise_check.judge("forward", forged)["state"] == "error"
    bad_dtype = ['{"returned": {"kind": "ndarray", "type": "ndarray", "shape": [2, 2], "dtype": "?!", "values": []}}']
    assert exercise_check.judge("forward", bad_dtype)["state"] == "error"
    assert exercise_check.judge("forward", right[:1] + ['{"load": {"sentence": "ok"}}'])["state"] == "error"
    assert exercise_check.judge("forward", ["[]"])["state"] == "error"
    assert exercise_check.judge("forward", right + right)["state"] == "pass"  # extra reports are not read


def test_a_nul_character_is_named_with_its_place():
    answer = exercise_check.check("import numpy as np\nx = 1\x00\n", "forward")
    assert answer == {"state": "error", "exercise": "forward", "line": 2, "sentence": (
        "Your code holds a NUL character (an invisible zero byte) on line 2, column 6: delete it; pasted text "
        "sometimes carries one.")}


def test_recursion_errors_say_the_function_recurses():
    answer = exercise_check.check("def max_pool2d(image, pool_size=2):\n    return max_pool2d(image, pool_size)\n",
                                  "forward")
    assert answer["sentence"] == ("Case 1 of 13 (the lesson's example): RecursionError on line 2 of your code: your "
                                  "function calls itself too deeply (more than Python's recursion limit), or without end.")


def test_python_stopping_under_the_learners_code_is_named():
    def ended(detail):
        return exercise_check.judge("forward", [], {"how": "crash", "detail": detail})["sentence"]

    assert ended("Exit: Program terminated with exit(0)").startswith(
        "Your code stopped Python itself (Exit: Program terminated with exit(0)) before case 1 of 13")
    assert "os._exit() and os.abort() end the whole interpreter" in ended("Exit: Program terminated with exit(0)")
    assert ended("RangeError: Maximum call stack size exceeded").startswith("Your code overflowed the browser's stack")


def test_the_exercise_signatures_come_from_the_reference_functions():
    assert exercise_run.signature_text("forward") == "def max_pool2d(image, pool_size=2)"
    assert exercise_run.signature_text("conv2d_backward") == "def conv2d_backward(x, w, grad_output)"
    assert exercise_run.signature_text("mse_loss_backward") == "def mse_loss_backward(prediction, target)"
    assert exercise_check.FUNCTION_NAMES == {"forward": exercises.max_pool2d.__name__,
                                             "backward": exercises.max_pool2d_backward.__name__,
                                             "conv2d_backward": "conv2d_backward",
                                             "mse_loss_backward": "mse_loss_backward"}


@pytest.mark.parametrize("exercise, source", [
    ("forward", FORWARD["numpy"]), ("forward", FORWARD["off_by_one"]),
    ("backward", BACKWARD["loops"]), ("backward", BACKWARD["last_max_wins"]),
], ids=["forward-right", "forward-off-by-one", "backward-right", "backward-last-wins"])
def test_a_function_is_checked_as_its_source_is(exercise, source):
    # From Python a learner hands check() the function itself: the same verdict, case by
    # case, as for the text that defines it.
    namespace = {}
    exec(source, namespace)
    function = namespace[exercise_check.FUNCTION_NAMES[exercise]]
    assert exercise_check.check(function, exercise) == exercise_check.check(source, exercise)


def test_a_function_that_raises_is_reported_not_raised():
    def broken(image, pool_size=2):
        raise KeyError("oops")

    answer = exercise_check.check(broken, "forward")
    assert answer["state"] == "error"
    assert answer["sentence"] == "Case 1 of 13 (the lesson's example): KeyError: 'oops'."


def test_check_refuses_what_is_neither_a_function_nor_source():
    with pytest.raises(TypeError, match="fn_or_source must be a function or its source as a string, got int"):
        exercise_check.check(3, "forward")
    assert exercise_check.check(exercises.max_pool2d, "forward")["state"] == "pass"


def test_the_checkers_fixture_is_the_one_the_widget_starts_with(build_module):
    # The "fixture" case promises the learner the grids' own 4 x 4 input: the front end's
    # FIXTURE (web/widget/state.js, read under Node), which is also the lesson's.
    try:
        node = build_module.node_for_snapshot()
    except build_module.SnapshotUnavailable as missing:
        pytest.fail(f"this test needs Node.js {build_module.NODE_MIN_MAJOR}+ ({missing}): run it with "
                    "`python build.py test`, which installs it, or install Debian's nodejs")
    state = (Path(__file__).resolve().parents[2] / "web" / "widget" / "state.js").as_uri()
    shown = subprocess.run([node, "--input-type=module", "-e",
                            f"const {{ FIXTURE }} = await import({json.dumps(state)}); console.log(JSON.stringify(FIXTURE));"],
                           capture_output=True, text=True, check=True).stdout
    assert json.loads(shown) == exercise_check.FIXTURE == FIXTURE_ROWS

"""The window geometry: output sides by PyTorch's formula, window starts and sampled
lines, and the refusals that need the input size."""

import pytest

from poolgrad.geometry import axis_formula, geometry, output_size, sampled_lines, window_starts


@pytest.mark.parametrize("k, s, side", [(2, 2, 2), (3, 1, 2), (2, 1, 3), (4, 1, 1),
                                        (1, 1, 4), (3, 2, 1), (1, 3, 2)])
def test_output_sides_on_the_4x4_fixture(k, s, side):
    assert output_size(4, k, s) == side
    assert geometry((4, 4), k, s).output == (side, side)


def test_geometry_fields_are_normalised_pairs():
    g = geometry((5, 7), (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2),
                 ceil_mode=True)
    assert g.kernel == (3, 2) and g.stride == (2, 1) and g.padding == (1, 0)
    assert g.dilation == (1, 2) and g.ceil_mode is True and g.input == (5, 7)
    assert g.output == (output_size(5, 3, 2, 1, 1, True), output_size(7, 2, 1, 0, 2, True))


def test_ceil_mode_rounds_up_but_drops_a_window_starting_in_the_padding():
    assert output_size(5, 2, 2) == 2
    assert output_size(5, 2, 2, ceil_mode=True) == 3
    # (5 + 2 - 2) / 2 rounds up to 3, so 4 windows; the 4th would start at padded 6,
    # i.e. in the right padding: dropped.
    assert output_size(5, 2, 2, padding=1, ceil_mode=True) == 3
    assert output_size(6, 3, 3, padding=1, ceil_mode=True) == 3


def test_output_side_below_one_is_refused_with_the_formula_numbers():
    with pytest.raises(ValueError, match="kernel_size=5 does not fit: an input side of 4 "
                                         r"\(padded by 0 on each end\) holds no window"):
        geometry((4, 9), 5)
    with pytest.raises(ValueError, match="kernel_size=3 does not fit.*dilation 3"):
        geometry((6, 6), 3, dilation=3)


def test_windows_that_sample_only_padding_are_refused():
    with pytest.raises(ValueError, match="makes output row 0's window sample only padding"):
        geometry((2, 2), 2, stride=1, padding=1, dilation=3)
    with pytest.raises(ValueError, match="output column"):
        geometry((9, 2), 2, stride=1, padding=1, dilation=3)


@pytest.mark.parametrize("hw, message", [
    ((10**5, 10**5), "the input plane of 100000 x 100000 cells is too large"),
    ((0, 3), "the input plane must have at least one row and one column"),
])
def test_geometry_refuses_absurd_or_empty_planes(hw, message):
    with pytest.raises(ValueError, match=message):
        geometry(hw, 2)


def test_output_size_checks_its_arguments():
    with pytest.raises(TypeError, match="size must be an int"):
        output_size(4.0, 2)
    with pytest.raises(ValueError, match="size must be at least 1"):
        output_size(0, 2)
    with pytest.raises(TypeError, match="kernel_size must be an int here"):
        output_size(4, (2, 2))


def test_window_starts_and_sampled_lines_follow_stride_padding_and_dilation():
    assert window_starts(4, 3, 1).tolist() == [-1, 2, 5, 8]
    lines = sampled_lines(3, 2, 3, 1, 2)
    assert lines.tolist() == [[-1, 1], [2, 4], [5, 7]]
    assert (lines[:, 0] == window_starts(3, 3, 1)).all()


@pytest.mark.parametrize("n, k, s, p, d, ceil", [
    (4, 2, 2, 0, 1, False), (5, 2, 2, 1, 1, True), (7, 3, 2, 1, 2, True), (9, 4, 3, 2, 1, True),
])
def test_axis_formula_shows_its_working(n, k, s, p, d, ceil):
    numerator, by_formula, count = axis_formula(n, k, s, p, d, ceil)
    assert numerator == n + 2 * p - d * (k - 1) - 1
    assert by_formula == (-(-numerator // s) if ceil else numerator // s) + 1
    assert count == output_size(n, k, s, p, d, ceil)
    assert count in (by_formula, by_formula - 1)

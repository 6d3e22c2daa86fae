"""Card faces: one enum for the text and the viewer, read from its text."""

import pytest

from arena.errors import ConfigError
from arena.logs.render import Faces, card_lister, face_namer
from arena.rules.cards import BIT


def test_faces_name_cards_and_are_read_from_their_text():
    seven_of_denari = 6
    assert face_namer(Faces.SHORT)(seven_of_denari) == face_namer("short")(seven_of_denari)
    assert face_namer("french")(seven_of_denari) == "7♦"
    assert face_namer(Faces.ITALIAN)(seven_of_denari) == "7 di denari"
    assert card_lister("italian")(BIT[0] | BIT[6]) == "Asso di denari, 7 di denari"
    assert f"{Faces.FRENCH}" == "french"


def test_unknown_faces_say_which_there_are():
    from arena.logs.viewer import render_html

    with pytest.raises(ConfigError, match="faces must be french, italian or short, not 'x'"):
        face_namer("x")
    with pytest.raises(ConfigError, match="faces must be french, italian or short, not 'x'"):
        render_html(None, faces="x")  # type: ignore[arg-type]

from typing import Annotated, Literal, Optional

import toolhost


@toolhost.tool
def weather(city: str, days: int = 1, unit: Literal["c", "f"] = "c", verbose: bool = False) -> str:
    """Forecast for a city.

    Args:
        city: the city's name
        days: how many days ahead
    """
    return f"{city}: {days} day(s) in {unit}, verbose={verbose}"


@toolhost.tool
def forecast(cities: list[str], note: Annotated[Optional[str], "a note"] = None) -> dict:
    """Several cities at once."""
    if not cities:
        raise ValueError("no cities given")
    return {"output": ", ".join(cities), "title": "forecast", "metadata": {"n": len(cities), "note": note}}

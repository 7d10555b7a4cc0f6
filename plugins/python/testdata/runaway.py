import toolhost


@toolhost.tool
def spin() -> str:
    """Never ends."""
    while True:
        pass


@toolhost.tool
def bomb() -> str:
    """Takes all the memory it can."""
    hoard = []
    while True:
        hoard.append(bytearray(1 << 20))

"""--hosts items no claim writes (planner/transaction.py's parse_hosts).

The plan, the coordinator's decisions (a failure anywhere, a rollback or a commit that
fails), every ssh command and the other bad --hosts items are the claims of
witnesses/transaction/transaction_plan.py, coordinator_cli.py and ssh_transport.py.
"""

from __future__ import annotations

import pytest

from planner.refusal import PlannerInputError
from planner.transaction import parse_hosts


@pytest.mark.parametrize(
    ("text", "item", "message"),
    [
        ("", "", "HOST=USER@ADDRESS"),
        ("srv5=root@10.0.0.5,,srv6=root@x", "srv5=root@10.0.0.5,,srv6=root@x", "comma"),
        ("srv5=root@[1:2:3]", "srv5=root@[1:2:3]", "not a bracketed IPv6 address"),
        ("srv5=root@[fd00::7%a;b]", "srv5=root@[fd00::7%a;b]", "not a bracketed IPv6 address"),
        # an IPv6 address without brackets is said to be one, never "port ':1' is not a number"
        ("srv5=root@::1", "srv5=root@::1", "'::1' holds more than one ':': an IPv6 address"),
        ("srv5=root@fd00::7:22", "srv5=root@fd00::7:22", "must be in brackets, as in root@[::1]"),
    ],
)
def test_bad_hosts_are_located_errors(text: str, item: str, message: str) -> None:
    with pytest.raises(PlannerInputError) as caught:
        parse_hosts(text)
    assert caught.value.source == "--hosts"
    assert caught.value.where == item
    assert message in caught.value.message


def test_one_address_on_two_ports_or_an_ipv6_with_a_zone_is_two_hosts() -> None:
    hosts = parse_hosts("srv5=root@10.0.0.5,srv6=root@10.0.0.5:2222,srv7=root@[fe80::1%eth0]")
    assert [(h.address, h.port) for h in hosts] == [
        ("10.0.0.5", 22),
        ("10.0.0.5", 2222),
        ("fe80::1%eth0", 22),
    ]

"""Postage for parcels: a rate table by zone, and the price of one parcel."""

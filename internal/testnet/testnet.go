// Package testnet holds what the tests of several packages need to play a
// misbehaving receiver on a raw socket and know what the other end can
// see. It is imported by tests only.
package testnet

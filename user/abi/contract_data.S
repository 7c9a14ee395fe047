/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* bpf/contract.json, embedded in build/abicap as the default contract. */
	.section .rodata
	.global abicap_default_contract
	.global abicap_default_contract_end
abicap_default_contract:
	.incbin "bpf/contract.json"
abicap_default_contract_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits

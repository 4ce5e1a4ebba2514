/* Files compiled into the binary: the default scenario and the hardware
 * catalog, so `hetlab run` works from any directory. Paths are relative to
 * the repository root, where make runs the assembler. */
	.section .rodata
	.global hl_embed_guian, hl_embed_guian_end
	.global hl_embed_gpus, hl_embed_gpus_end
	.global hl_embed_cpus, hl_embed_cpus_end
	.global hl_embed_mig, hl_embed_mig_end
hl_embed_guian:
	.incbin "scenarios/guian.json"
hl_embed_guian_end:
	.byte 0
hl_embed_gpus:
	.incbin "scenarios/catalog/gpus.json"
hl_embed_gpus_end:
	.byte 0
hl_embed_cpus:
	.incbin "scenarios/catalog/cpus.json"
hl_embed_cpus_end:
	.byte 0
hl_embed_mig:
	.incbin "scenarios/catalog/mig.json"
hl_embed_mig_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits

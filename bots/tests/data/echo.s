; echo.s: a tiny NES program that echoes controller 1 into RAM, for testing
; the emulator host (bots/src/nes/emulator.rs) without any game ROM.
;
; Once per frame, in the NMI handler, it reads controller 1 through the real
; port ($4016: strobe with 1 then 0, then eight reads, A first) and stores:
;   $0010  the buttons held this frame, A in bit 7 ... Right in bit 0
;          (the order of bots::host::Buttons)
;   $0011  the frame counter (one more per NMI, wraps at 256)
;   $0012  buttons newly pressed this frame (held now, not last frame)
;   $0020..$0027  per button, how many times it was newly pressed
;          ($0020 counts A ... $0027 counts Right)
; Assemble: ca65 echo.s -o echo.o && ld65 -C echo.cfg echo.o -o echo.nes
; (bots/scripts/build-echo.sh does this and checks the result against the
; committed echo.nes).

PPUCTRL   = $2000
PPUSTATUS = $2002
JOY1      = $4016

HELD      = $10
FRAME     = $11
PRESSED   = $12
PREV      = $13
TAPS      = $20

.segment "HEADER"
    .byte "NES", $1A
    .byte 1                 ; 16 KiB of PRG ROM
    .byte 0                 ; no CHR ROM (CHR RAM)
    .byte 0, 0              ; mapper 0 (NROM), horizontal mirroring
    .byte 0, 0, 0, 0, 0, 0, 0, 0

.segment "CODE"
reset:
    sei
    cld
    ldx #$FF
    txs
    inx                     ; X = 0
    stx PPUCTRL             ; NMI off while the PPU warms up
    bit PPUSTATUS
vblank1:
    bit PPUSTATUS
    bpl vblank1
    txa                     ; A = 0: clear the zero page
clear:
    sta $00,x
    inx
    bne clear
vblank2:
    bit PPUSTATUS
    bpl vblank2
    lda #$80
    sta PPUCTRL             ; NMI on at every vertical blank
forever:
    jmp forever

nmi:
    pha
    txa
    pha
    lda #1                  ; strobe: latch the buttons
    sta JOY1
    lda #0
    sta JOY1
    ldx #8
read:
    lda JOY1                ; bit 0 is the next button, A first
    lsr a                   ; into carry
    rol HELD                ; A ends in bit 7, Right in bit 0
    dex
    bne read
    lda PREV                ; newly pressed = held and not held before
    eor #$FF
    and HELD
    sta PRESSED
    ldx #0                  ; count each newly pressed button, A first
count:
    asl a
    bcc next
    inc TAPS,x
next:
    inx
    cpx #8
    bne count
    lda HELD
    sta PREV
    inc FRAME
    pla
    tax
    pla
irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
